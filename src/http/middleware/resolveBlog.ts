import type { Middleware } from 'koa';
import type { BlogsRepo } from '../../db/blogsRepo.js';
import { BadRequestError, NotFoundError } from '../../domain/errors.js';
import { grantOf } from '../../services/authContext.js';
import type { AppState } from '../state.js';

/**
 * Which blog a request acts on: X-Blog-Id when present (a blog of the caller's
 * account, else 404), otherwise the key's bound blog, otherwise 400.
 */
export function resolveBlog(blogs: BlogsRepo): Middleware<AppState> {
  return async (ctx, next) => {
    const auth = ctx.state.auth;
    if (!auth) throw new Error('resolveBlog needs authenticate first');
    const header = ctx.get('x-blog-id').trim();
    const blogId = header || grantOf(auth).blogId;
    if (!blogId) throw new BadRequestError('blog not resolved: send X-Blog-Id or use a blog-bound key');
    const blog = await blogs.findOwned(auth.account.id, blogId);
    if (!blog) throw new NotFoundError('blog not found');
    ctx.state.blog = blog;
    return next();
  };
}
