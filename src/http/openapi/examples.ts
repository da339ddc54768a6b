/**
 * One request and one success example per operation, by operationId, for the OpenAPI document
 * (the rendered reference at /v1/docs shows them; generated clients' docs quote them). They are
 * real answers of a walkthrough with the ids shortened to fixed values, and `@redocly/cli lint`
 * (test/integration/openApiLint.test.ts) checks each against its schema; a test also fails when an
 * operation has none.
 */
import {
  BLOG_ID,
  MEDIA_ID,
  SITE,
  CREATED,
  UPDATED,
  PUBLISHED,
  postSummary,
  post,
  postWritten,
  blog,
  pagination,
  deleted,
  media,
  domain,
  keyCreated,
} from './exampleValues.js';
import { READER_EXAMPLES } from './readerExamples.js';
import { SESSION_EXAMPLES } from './sessionExamples.js';
import { PREVIEW_EXAMPLES } from './previewExamples.js';
import { WEBHOOK_EXAMPLES } from './webhookExamples.js';

export interface OperationExamples {
  /** JSON request body (operations that take one). */
  request?: unknown;
  /** Body of the success answer. */
  response: unknown;
}

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  getHealth: { response: { status: 'ok' } },
  tlsAllowed: { response: { domain: 'field-notes.example.com', allowed: true } },
  getOpenApiDocument: { response: { openapi: '3.1.0', info: { title: 'Folio API', version: '1.0.0' }, paths: {} } },
  getApiReference: { response: '<!doctype html>\n<html lang="en">\n<head>\n<title>Folio API reference</title>\n…' },
  getApiReferenceAsset: {
    response: {
      'text/css': '.swagger-ui{…}',
      'text/javascript': "window.ui = SwaggerUIBundle({ url: '/v1/openapi.json', dom_id: '#swagger-ui' });",
      'image/png': '(PNG bytes)',
    },
  },
  callMcp: {
    request: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_posts', arguments: { q: 'chisel' } } },
    response: {
      jsonrpc: '2.0',
      id: 1,
      result: {
        content: [{ type: 'text', text: '{"data": [], "pagination": {"page": 1, "per_page": 20, "total": 0, "total_pages": 0}}' }],
        structuredContent: { data: [], pagination: { page: 1, per_page: 20, total: 0, total_pages: 0 } },
      },
    },
  },
  getMetrics: {
    response:
      '# HELP folio_http_requests_total HTTP requests answered\n# TYPE folio_http_requests_total counter\nfolio_http_requests_total{method="GET",route="/v1/posts",status="200"} 12\n',
  },

  createPost: {
    request: {
      title: 'Sharpening a chisel',
      content: '# Sharpening a chisel\n\nStart with the **back**.',
      tags: ['tools', 'how-to'],
      meta: { description: 'Three stones and ten minutes' },
    },
    response: { ...postWritten, status: 'draft', created_at: CREATED },
  },
  listPosts: { response: { data: [postSummary], pagination } },
  getPost: { response: post },
  updatePost: { request: { tags: ['tools', 'how-to'] }, response: postSummary },
  deletePost: { response: deleted },
  publishPost: { request: {}, response: { ...postWritten, status: 'published', published_at: PUBLISHED } },
  schedulePost: {
    request: { scheduled_at: '2027-01-15T09:00:00+09:00' },
    response: { slug: 'sharpening-a-chisel', status: 'scheduled', scheduled_at: '2027-01-15T00:00:00.000Z' },
  },
  unpublishPost: { request: {}, response: { ...postSummary, status: 'draft', published_at: null } },
  listPostRevisions: {
    response: {
      data: [
        { id: '0f8e6a52-3c1d-4b7a-9e25-6d4c2b1a0f93', created_at: UPDATED, title: 'Sharpening a chisel', content_length: 1834 },
        { id: 'b7d41c09-5e2a-4f38-8c61-2a9e0d7f5b14', created_at: CREATED, title: 'Sharpening a chisel', content_length: 1720 },
      ],
      pagination: { ...pagination, total: 2 },
    },
  },
  getPostRevision: {
    response: {
      id: 'b7d41c09-5e2a-4f38-8c61-2a9e0d7f5b14',
      created_at: CREATED,
      title: 'Sharpening a chisel',
      content_md: '# Sharpening a chisel\n\nStart with the **back**.',
    },
  },
  restorePostRevision: { request: {}, response: postSummary },

  createBlog: {
    request: { slug: 'field-notes', name: 'Field Notes', description: 'Notes from the workshop' },
    response: { id: BLOG_ID, slug: 'field-notes', name: 'Field Notes', url: `${SITE}/`, discoverable: false, created_at: CREATED },
  },
  listBlogs: {
    response: {
      data: [
        {
          id: BLOG_ID,
          slug: 'field-notes',
          name: 'Field Notes',
          description: 'Notes from the workshop',
          custom_domain: null,
          discoverable: true,
          created_at: CREATED,
          updated_at: UPDATED,
        },
      ],
    },
  },
  getBlog: { response: blog },
  updateBlog: {
    request: { theme_config: { customCss: 'body { max-width: 42rem }' }, discoverable: true },
    response: {
      id: BLOG_ID,
      slug: 'field-notes',
      name: 'Field Notes',
      description: 'Notes from the workshop',
      custom_domain: null,
      theme_config: blog.theme_config,
      discoverable: true,
      updated_at: UPDATED,
    },
  },
  deleteBlog: { response: deleted },
  getPublishingStatus: {
    response: {
      pending: 1,
      failed: 0,
      jobs: [
        {
          id: 42,
          kind: 'post',
          status: 'pending',
          attempts: 1,
          last_error: 'store unavailable: connect ECONNREFUSED',
          next_attempt_at: '2026-11-25T16:28:00.000Z',
          created_at: CREATED,
        },
      ],
    },
  },

  createBlogKey: { request: { name: 'editor', scopes: ['posts:*'], expires_at: '2027-02-23T00:00:00Z' }, response: keyCreated },
  listBlogKeys: {
    response: {
      data: [{ id: keyCreated.id, name: 'editor', key_prefix: 'pk_live_znYu', last_used_at: UPDATED, created_at: CREATED, expires_at: keyCreated.expires_at }],
    },
  },
  revokeBlogKey: { response: deleted },
  createAccountKey: {
    request: { name: 'backup script', scopes: ['blogs:read'] },
    response: {
      id: 'd167a248-c9c4-417b-b9b0-9818d4728bbb',
      name: 'backup script',
      key: 'pk_live_pXsq8knH3HkyQkTzpMWNW8m9KKI0thFiwxbLNLdt7ao',
      prefix: 'pk_live_pXsq',
      scopes: ['blogs:read'],
      created_at: CREATED,
      expires_at: null,
    },
  },
  listAccountKeys: {
    response: {
      data: [
        {
          id: 'd167a248-c9c4-417b-b9b0-9818d4728bbb',
          name: 'backup script',
          key_prefix: 'pk_live_pXsq',
          scopes: ['blogs:read'],
          last_used_at: null,
          created_at: CREATED,
          expires_at: null,
        },
      ],
    },
  },
  revokeAccountKey: { response: deleted },
  getAccount: {
    response: {
      id: '5b0c3f5e-8d7a-4f43-9a51-0e2d6c1b7a90',
      email: 'ada@example.com',
      plan: 'creator',
      created_at: CREATED,
      limits: { blogs: 3, requests_per_hour: 1000 },
      usage: { blogs: 1 },
    },
  },
  deleteAccount: { request: { confirm: '5b0c3f5e-8d7a-4f43-9a51-0e2d6c1b7a90' }, response: deleted },

  registerDomain: {
    request: { hostname: 'notes.example.com' },
    response: {
      ...domain,
      instructions:
        'Add two DNS records: notes.example.com CNAME field-notes.blogs.example.com, and _folio-challenge.notes.example.com TXT folio-verification=8830ebc7b869dd554612d4e186f6a96a (exactly this text; it proves you control the hostname).',
    },
  },
  getDomain: { response: { ...domain, last_error: 'no CNAME record at notes.example.com' } },
  removeDomain: { response: deleted },

  uploadMedia: { response: media },
  listMedia: { response: { data: [media], pagination } },
  getMedia: { response: media },
  deleteMedia: { response: deleted },

  exportAccount: {
    response: {
      format: 'folio-export',
      version: 1,
      exported_at: UPDATED,
      blogs: [
        {
          slug: 'field-notes',
          name: 'Field Notes',
          description: 'Notes from the workshop',
          theme_config: blog.theme_config,
          discoverable: true,
          custom_domain: null,
          created_at: CREATED,
          updated_at: UPDATED,
          posts: [
            {
              slug: 'sharpening-a-chisel',
              title: 'Sharpening a chisel',
              content: post.content_md,
              tags: postSummary.tags,
              status: 'published',
              meta: { description: 'Three stones and ten minutes', og_image: null },
              published_at: PUBLISHED,
              scheduled_at: null,
              created_at: CREATED,
              updated_at: UPDATED,
              aliases: ['/2019/05/sharpening-a-chisel/'],
            },
          ],
          media: [{ id: MEDIA_ID, url: media.url, width: 1600, height: 1000, content_type: 'image/jpeg', bytes: 412_733, created_at: CREATED }],
        },
      ],
    },
  },
  searchPosts: {
    response: {
      data: [
        {
          slug: 'sharpening-a-chisel',
          title: 'Sharpening a chisel',
          meta_description: 'Three stones and ten minutes',
          tags: ['tools', 'how-to'],
          created_at: CREATED,
          published_at: PUBLISHED,
          url: `${SITE}/sharpening-a-chisel`,
        },
      ],
      pagination,
    },
  },
  ...READER_EXAMPLES,
  ...SESSION_EXAMPLES,
  ...PREVIEW_EXAMPLES,
  ...WEBHOOK_EXAMPLES,
};
export const ERROR_EXAMPLE = { error: 'not_found', message: 'post "sharpening-a-chisel" not found' };
