/**
 * The card's layout as the element tree satori lays out (plain `{type, props}` objects, so no
 * JSX runtime is needed): a band of the accent colour, the blog's name, the title large and
 * clamped to three lines, then the tags and the date at the foot.
 */
import { CARD_HEIGHT, CARD_WIDTH, type CardSpec } from './cardSpec.js';

export const CARD_FONT = 'Pretendard';

export interface CardElement {
  type: 'div';
  props: { style: Record<string, string | number>; children?: string | CardElement[] };
}

const div = (style: CardElement['props']['style'], children?: string | CardElement[]): CardElement => ({
  type: 'div',
  props: children === undefined ? { style } : { style, children },
});

/** Shorter titles are drawn larger; a long one still fits three lines at the smallest size. */
export function titleSize(title: string): number {
  const length = [...title].length;
  if (length <= 24) return 76;
  if (length <= 48) return 66;
  return 56;
}

export function cardTree(spec: CardSpec): CardElement {
  const { colours } = spec;
  const head: CardElement[] = spec.kicker
    ? [div({ display: 'flex', fontSize: 32, fontWeight: 600, color: colours.accent, marginBottom: 28 }, spec.kicker)]
    : [];
  const subtitle: CardElement[] = spec.subtitle
    ? [div({ display: 'block', fontSize: 34, fontWeight: 500, color: colours.muted, marginTop: 28, lineHeight: 1.4, lineClamp: 2 }, spec.subtitle)]
    : [];
  const tags = spec.tags.map((tag) =>
    div(
      {
        display: 'flex',
        fontSize: 26,
        fontWeight: 600,
        color: colours.accent,
        backgroundColor: colours.surface,
        borderRadius: 999,
        padding: '8px 22px',
        marginRight: 14,
      },
      `#${tag}`,
    ),
  );
  return div(
    {
      width: CARD_WIDTH,
      height: CARD_HEIGHT,
      boxSizing: 'border-box',
      display: 'flex',
      flexDirection: 'column',
      backgroundColor: colours.bg,
      color: colours.fg,
      fontFamily: CARD_FONT,
      borderTop: `18px solid ${colours.accent}`,
      padding: '56px 80px 56px',
    },
    [
      div({ display: 'flex', flexDirection: 'column', flexGrow: 1, flexShrink: 1, minHeight: 0, justifyContent: 'center' }, [
        ...head,
        div(
          {
            display: 'block',
            fontSize: titleSize(spec.title),
            fontWeight: 700,
            lineHeight: 1.22,
            lineClamp: 3,
            // Korean breaks between words, as it is read; a word longer than a line still breaks.
            wordBreak: spec.lang === 'ko' ? 'keep-all' : 'normal',
            overflowWrap: 'break-word',
          },
          spec.title,
        ),
        ...subtitle,
      ]),
      div({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', minHeight: 52 }, [
        div({ display: 'flex', alignItems: 'center', overflow: 'hidden' }, tags),
        div({ display: 'flex', fontSize: 28, fontWeight: 500, color: colours.muted, flexShrink: 0, marginLeft: 24 }, spec.date),
      ]),
    ],
  );
}
