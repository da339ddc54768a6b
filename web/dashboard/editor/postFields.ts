/**
 * The editor's fields as the API's post body: what a create sends, and what a save sends (only
 * the fields that changed since the version loaded, so a generated description stays generated).
 * No DOM: test/unit/dashboard/postFields.test.ts checks it.
 */

export interface PostFields {
  title: string;
  content: string;
  /** As typed: comma-separated. */
  tags: string;
  slug: string;
  description: string;
  /** An http(s) URL or a media id; empty for none. */
  ogImage: string;
}

/** The post as GET /v1/posts/:slug answers it (the fields the editor uses). */
export interface LoadedPost {
  id: string;
  title: string;
  slug: string;
  content_md: string;
  meta_description: string | null;
  og_image_url: string | null;
  tags: string[];
  status: 'draft' | 'published' | 'scheduled';
  published_at: string | null;
  scheduled_at: string | null;
}

export function emptyFields(): PostFields {
  return { title: '', content: '', tags: '', slug: '', description: '', ogImage: '' };
}

/**
 * What the editor shows for a loaded post. The description shown is the stored one, generated or
 * not: the API does not say which, and sending it back unchanged keeps it as it is.
 */
export function fieldsOf(post: LoadedPost): PostFields {
  return {
    title: post.title,
    content: post.content_md,
    tags: post.tags.join(', '),
    slug: post.slug,
    description: post.meta_description ?? '',
    ogImage: post.og_image_url ?? '',
  };
}

/** Comma-separated tags as the API's list: trimmed, blanks dropped, each once. */
export function tagsFromText(text: string): string[] {
  const seen = new Set<string>();
  for (const tag of text.split(',')) {
    const trimmed = tag.trim().replace(/\s+/g, ' ');
    if (trimmed !== '') seen.add(trimmed);
  }
  return [...seen];
}

/** The body of POST /v1/posts: a draft; empty optional fields are left to the API's defaults. */
export function createBody(fields: PostFields): Record<string, unknown> {
  const meta: Record<string, string> = {};
  if (fields.description.trim() !== '') meta.description = fields.description.trim();
  if (fields.ogImage.trim() !== '') meta.og_image = fields.ogImage.trim();
  return {
    title: fields.title,
    content: fields.content,
    tags: tagsFromText(fields.tags),
    ...(fields.slug.trim() !== '' ? { slug: fields.slug.trim() } : {}),
    ...(Object.keys(meta).length > 0 ? { meta } : {}),
    status: 'draft',
  };
}

/** The body of PUT /v1/posts/:slug: the fields that differ from `base`; empty when none do. */
export function updateBody(fields: PostFields, base: PostFields): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (fields.title !== base.title) body.title = fields.title;
  if (fields.content !== base.content) body.content = fields.content;
  if (tagsFromText(fields.tags).join('\n') !== tagsFromText(base.tags).join('\n')) body.tags = tagsFromText(fields.tags);
  if (fields.slug.trim() !== base.slug.trim() && fields.slug.trim() !== '') body.slug = fields.slug.trim();
  const meta: Record<string, string | null> = {};
  // An emptied field is null: the API then generates the description, or drops the image.
  if (fields.description.trim() !== base.description.trim()) meta.description = fields.description.trim() || null;
  if (fields.ogImage.trim() !== base.ogImage.trim()) meta.og_image = fields.ogImage.trim() || null;
  if (Object.keys(meta).length > 0) body.meta = meta;
  return body;
}

export function sameFields(a: PostFields, b: PostFields): boolean {
  return Object.keys(updateBody(a, b)).length === 0;
}
