import type { BlogWithDomain } from '../../src/domain/blog.js';

/** A blog as publishing's stages take it, for unit tests that need no database row of it. */
export function testBlog(slug: string, name = 'Test blog'): BlogWithDomain {
  return {
    id: `blog-${slug}`,
    accountId: 'account-1',
    slug,
    name,
    description: '',
    themeConfig: {},
    discoverable: false,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
    customDomain: null,
    domainActive: false,
  };
}
