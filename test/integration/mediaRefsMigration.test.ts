import { afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, type Db } from '../../src/db/database.js';
import { migrationsDir } from '../../src/lib/paths.js';

/**
 * Migration 017 rewrites the blog's own media URLs stored by earlier builds (issue 27 item A2):
 * on its subdomain under the recorded service domain and on its active custom domain, in the
 * Markdown, the HTML and og_image; nothing else.
 */

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

function databaseAt014(): Db {
  const dir = mkdtempSync(join(tmpdir(), 'folio-mig-'));
  dirs.push(dir);
  const db = new Database(join(dir, 'folio.db'));
  db.pragma('foreign_keys = ON');
  db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  for (const name of readdirSync(migrationsDir)
    .filter((n) => /^0(0\d|1[0-4])_/.test(n))
    .sort()) {
    db.exec(readFileSync(join(migrationsDir, name), 'utf8'));
    db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(Number(name.slice(0, 3)), name, new Date().toISOString());
  }
  return db;
}

const T = '2025-01-01T00:00:00.000Z';
const NAME = '0123456789abcdef0123-800x600';

function addPost(db: Db, blogId: string, id: string, md: string, html: string, og: string | null): void {
  db.prepare(
    `INSERT INTO posts (id, blog_id, title, slug, content_md, content_html, meta_description, og_image_url, status, published_at, created_at, updated_at)
     VALUES (?, ?, 't', ?, ?, ?, '', ?, 'published', ?, ?, ?)`,
  ).run(id, blogId, id, md, html, og, T, T, T);
}

const row = (db: Db, id: string) =>
  db.prepare('SELECT content_md, content_html, og_image_url FROM posts WHERE id = ?').get(id) as {
    content_md: string;
    content_html: string;
    og_image_url: string | null;
  };

describe('migration 017_media_refs', () => {
  it('stores the blog’s own media URLs without the host, for its subdomain and its active custom domain only', () => {
    const db = databaseAt014();
    db.prepare(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc', 'enterprise', ?, ?)`).run(T, T);
    for (const slug of ['one', 'two'])
      db.prepare(`INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES (?, 'acc', ?, ?, ?, ?)`).run(slug, slug, slug, T, T);
    db.prepare(`INSERT INTO settings (key, value, updated_at) VALUES ('service_domain', 'blogs.example.com', ?)`).run(T);
    db.prepare(`INSERT INTO domains (blog_id, hostname, status, challenge_token, created_at) VALUES ('one', 'www.one.example', 'active', ?, ?)`).run(
      'a'.repeat(32),
      T,
    );
    db.prepare(
      `INSERT INTO domains (blog_id, hostname, status, challenge_token, created_at, expires_at) VALUES ('two', 'www.two.example', 'pending_verification', ?, ?, '2099-01-01T00:00:00.000Z')`,
    ).run('b'.repeat(32), T);

    addPost(
      db,
      'one',
      'p1',
      `![a](https://one.blogs.example.com/media/${NAME}.jpg) ![b](https://www.one.example/media/${NAME}.jpg) ![c](https://two.blogs.example.com/media/${NAME}.jpg) ![d](https://elsewhere.test/media/${NAME}.jpg)`,
      `<img src="https://one.blogs.example.com/media/${NAME}-480.jpg" srcset="https://one.blogs.example.com/media/${NAME}-480.jpg 480w, http://www.one.example/media/${NAME}-960.jpg 960w">`,
      `https://www.one.example/media/${NAME}.jpg`,
    );
    addPost(
      db,
      'two',
      'p2',
      `![a](https://two.blogs.example.com/media/${NAME}.jpg) ![b](https://www.two.example/media/${NAME}.jpg)`,
      '<p>x</p>',
      `https://one.blogs.example.com/media/${NAME}.jpg`,
    );

    migrate(db);

    expect(row(db, 'p1')).toEqual({
      content_md: `![a](folio-media:${NAME}.jpg) ![b](folio-media:${NAME}.jpg) ![c](https://two.blogs.example.com/media/${NAME}.jpg) ![d](https://elsewhere.test/media/${NAME}.jpg)`,
      content_html: `<img src="/media/${NAME}-480.jpg" srcset="/media/${NAME}-480.jpg 480w, /media/${NAME}-960.jpg 960w">`,
      og_image_url: `folio-media:${NAME}.jpg`,
    });
    // A pending domain is not the blog's yet; another blog's image stays absolute.
    expect(row(db, 'p2')).toEqual({
      content_md: `![a](folio-media:${NAME}.jpg) ![b](https://www.two.example/media/${NAME}.jpg)`,
      content_html: '<p>x</p>',
      og_image_url: `https://one.blogs.example.com/media/${NAME}.jpg`,
    });
  });

  it('changes nothing where no server recorded a service domain', () => {
    const db = databaseAt014();
    db.prepare(`INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ('acc', 'enterprise', ?, ?)`).run(T, T);
    db.prepare(`INSERT INTO blogs (id, account_id, slug, name, created_at, updated_at) VALUES ('one', 'acc', 'one', 'one', ?, ?)`).run(T, T);
    const md = `![a](http://one.localhost:3000/media/${NAME}.jpg)`;
    addPost(db, 'one', 'p1', md, '<p>x</p>', null);
    migrate(db);
    expect(row(db, 'p1').content_md).toBe(md);
  });
});
