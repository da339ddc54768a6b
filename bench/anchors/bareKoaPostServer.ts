/**
 * The ceiling for GET /v1/posts/:slug (the API read bench's anchor): a bare Koa server that answers the
 * same JSON body from prepared SQLite reads (the post and its aliases) of the same database file, with no auth, no rate
 * limit, no logging. Run as its own process: `node bareKoaPostServer.js <db file> <port>`;
 * prints `listening` when ready. Nothing in src/ imports it.
 */
import Database from 'better-sqlite3';
import Koa from 'koa';

const [dbFile, port] = process.argv.slice(2);
if (!dbFile || !port) throw new Error('usage: bareKoaPostServer <db file> <port>');

interface Row {
  id: string;
  blog_id: string;
  title: string;
  slug: string;
  content_md: string;
  content_html: string;
  meta_description: string;
  og_image_url: string | null;
  tags: string;
  status: string;
  published_at: string | null;
  scheduled_at: string | null;
  created_at: string;
  updated_at: string;
}

const db = new Database(dbFile, { readonly: true, fileMustExist: true });
const byBlogAndSlug = db.prepare<[string, string], Row>('SELECT * FROM posts WHERE blog_id = ? AND slug = ?');
const aliasesOf = db.prepare<[string], { path: string }>('SELECT path FROM post_aliases WHERE post_id = ? ORDER BY position');

const app = new Koa();
app.use((ctx) => {
  const slug = /^\/v1\/posts\/([^/]+)$/.exec(ctx.path)?.[1];
  const row = slug ? byBlogAndSlug.get(ctx.get('x-blog-id'), decodeURIComponent(slug)) : undefined;
  if (!row) {
    ctx.status = 404;
    ctx.body = { error: 'not_found', message: 'post not found' };
    return;
  }
  ctx.body = {
    id: row.id,
    blog_id: row.blog_id,
    title: row.title,
    slug: row.slug,
    content_md: row.content_md,
    content_html: row.content_html,
    meta_description: row.meta_description,
    og_image_url: row.og_image_url,
    tags: JSON.parse(row.tags) as string[],
    status: row.status,
    published_at: row.published_at,
    scheduled_at: row.scheduled_at,
    aliases: aliasesOf.all(row.id).map((alias) => alias.path),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
});
app.listen(Number(port), '127.0.0.1', () => console.log('listening'));
