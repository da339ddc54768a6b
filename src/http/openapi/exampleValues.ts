/** The sample resources the operation examples are made of: one blog, post, image, webhook, domain and key. */
export const BLOG_ID = '5f0c2f4e-8a1b-4c3d-9e2f-1a2b3c4d5e6f';
export const POST_ID = '573164ec-2c01-4b2e-9301-74f02097fa6d';
export const MEDIA_ID = '6cfaffd2-1e63-4204-805d-8be0c4a437ca';
export const WEBHOOK_ID = 'e123ce98-d841-406a-a990-d0b04cf16b7e';
export const SITE = 'https://field-notes.example.com';
export const CREATED = '2026-11-25T16:27:28.690Z';
export const UPDATED = '2026-11-25T16:29:35.397Z';
export const PUBLISHED = '2026-11-25T16:27:29.305Z';

export const postSummary = {
  id: POST_ID,
  title: 'Sharpening a chisel',
  slug: 'sharpening-a-chisel',
  status: 'published',
  tags: ['tools', 'how-to'],
  meta_description: 'Three stones and ten minutes',
  published_at: PUBLISHED,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const post = {
  ...postSummary,
  blog_id: BLOG_ID,
  content_md: '# Sharpening a chisel\n\nStart with the **back**.',
  content_html: '<h1>Sharpening a chisel</h1>\n<p>Start with the <strong>back</strong>.</p>\n',
  og_image_url: null,
  scheduled_at: null,
  aliases: ['/2019/05/sharpening-a-chisel/'],
};

export const postWritten = { id: POST_ID, slug: 'sharpening-a-chisel', url: `${SITE}/sharpening-a-chisel` };

export const blog = {
  id: BLOG_ID,
  slug: 'field-notes',
  name: 'Field Notes',
  description: 'Notes from the workshop',
  url: `${SITE}/`,
  custom_domain: null,
  theme_config: { customCss: 'body { max-width: 42rem }' },
  discoverable: true,
  created_at: CREATED,
  updated_at: UPDATED,
};

export const pagination = { page: 1, per_page: 20, total: 1, total_pages: 1 };
export const deleted = { deleted: true };

export const mediaStem = `${SITE}/media/1c8de9a7e0e51b0038ea-1600x1000`;
export const media = {
  id: MEDIA_ID,
  url: `${mediaStem}.jpg`,
  width: 1600,
  height: 1000,
  content_type: 'image/jpeg',
  bytes: 412_733,
  stored_bytes: 398_112,
  created_at: CREATED,
  variants: [480, 960, 1600].flatMap((width) =>
    [
      ['avif', 'image/avif'],
      ['webp', 'image/webp'],
      ['jpg', 'image/jpeg'],
    ].map(([ext, type]) => ({ width, height: (width * 5) / 8, content_type: type, url: `${mediaStem}-${width}.${ext}` })),
  ),
  og_image: { width: 1200, height: 630, content_type: 'image/jpeg', url: `${mediaStem}-og.jpg` },
};

export const webhook = { id: WEBHOOK_ID, url: 'https://hooks.example.com/folio', events: ['post.published', 'post.updated'], created_at: CREATED };

export const domain = {
  hostname: 'notes.example.com',
  status: 'pending_verification',
  cname_target: 'field-notes.blogs.example.com',
  verification: { type: 'TXT', name: '_folio-challenge.notes.example.com', value: 'folio-verification=8830ebc7b869dd554612d4e186f6a96a' },
  expires_at: '2026-12-02T16:27:34.917Z',
  last_error: null,
};

export const keyCreated = {
  id: 'bd047ff0-ac3e-4827-946d-836a15049cfb',
  name: 'editor',
  key: 'pk_live_znYu8NmN-kmDtu17yz9xU0Kwcm37OUWusfl_pqANa9U',
  prefix: 'pk_live_znYu',
  created_at: CREATED,
  expires_at: '2027-02-23T00:00:00.000Z',
};
