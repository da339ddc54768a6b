/**
 * What `folio push` reports as shortcodes and Liquid tags Folio shows as literal text: what the
 * reader sees as text, never what Markdown shows as code (fenced, indented or inline).
 */
import { describe, expect, it } from 'vitest';
import { unrenderedTags } from '../../../src/sync/generatorFields.js';

describe('unrenderedTags', () => {
  it('reports Hugo shortcodes and Liquid tags outside code, each once, closing forms left out', () => {
    const md =
      'A {{< figure src="a.png" >}} and {{% notice info %}}x{{% /notice %}}.\n\n{% include note.html %}\n{% highlight ruby %}\nputs 1\n{% endhighlight %}\n\n{{< figure src="b.png" >}}';
    expect(unrenderedTags(md)).toEqual(['figure', 'notice', 'include', 'highlight']);
  });

  it('leaves out shortcodes in fenced, indented and inline code (however many backticks)', () => {
    const md = [
      'Text.',
      '',
      '```',
      '{{< youtube abc >}}',
      '```',
      '',
      '    {{< gist user 123 >}}',
      '    {% include code.html %}',
      '',
      'Inline `{{< ref "a" >}}` and ``{{% tweet 1 %}} with ` inside``.',
      '',
      '> quoted',
      '>',
      '>     {{< vimeo 1 >}}',
    ].join('\n');
    expect(unrenderedTags(md)).toEqual([]);
  });

  it('finds a shortcode written where an indent is not code (a list item continuation) and in a link address', () => {
    const md = '- item\n\n    {{< param x >}}\n\n[old]({{< ref "post.md" >}}) and [b]({{<relref "c.md">}})';
    expect(unrenderedTags(md)).toEqual(['param', 'ref', 'relref']);
  });

  it('reports Liquid output tags by their variable, and not in code', () => {
    const md = 'See {{ site.url }}/about and {{page.title | escape}}, {{- site.url -}} again.\n\n    {{ site.baseurl }}\n\n`{{ content }}`';
    expect(unrenderedTags(md)).toEqual(['site.url', 'page.title']);
  });

  it('reports nothing for Markdown without braces, nor for braces written as entities (generators read the source)', () => {
    expect(unrenderedTags('# Plain\n\nNo templates { here } or %} there.')).toEqual([]);
    expect(unrenderedTags('Shown as text: &#123;&#123;< figure >&#125;&#125; and &lbrace;% include x %&rbrace;')).toEqual([]);
  });
});
