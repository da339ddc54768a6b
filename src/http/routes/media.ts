import type { MediaService } from '../../services/media.js';
import type { SiteUrls } from '../../domain/siteUrls.js';
import { presentPagination } from '../presenters/pagination.js';
import { presentMedia } from '../presenters/media.js';
import type { RouteDef } from '../routeDef.js';
import { blogOf, uploadOf } from '../state.js';
import { listMediaQuery, mediaListSchema, mediaSchema, type ListMediaQuery } from './media.schema.js';
import { deletedSchema } from './schemaParts.js';

export function mediaRoutes({ media, urls }: { media: MediaService; urls: SiteUrls }): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/media',
      operationId: 'uploadMedia',
      summary: 'Upload an image (the bytes as the body, at most 10 MB); 200 with the existing image when the blog already has these exact bytes',
      description:
        'Send the image bytes as the body with their Content-Type. The image is decoded and encoded again without metadata, with AVIF, WebP and original-format variants for srcset and a 1200 × 630 crop for og:image. The same bytes uploaded again answer 200 with the existing image.',
      tag: 'media',
      scope: 'media:write',
      blogScoped: true,
      upload: {
        contentTypes: ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/avif'],
        description:
          'The image file itself. SVG is refused (it can carry script). The image is decoded and encoded again: EXIF, GPS and other metadata are not kept.',
      },
      status: 201,
      response: mediaSchema,
      handler: async (ctx) => {
        const blog = blogOf(ctx);
        const { bytes, contentType } = uploadOf(ctx);
        const { media: uploaded, created } = await media.upload(blog, bytes, contentType);
        ctx.status = created ? 201 : 200;
        ctx.body = presentMedia(uploaded, urls.origin(blog));
      },
    },
    {
      method: 'GET',
      path: '/media',
      operationId: 'listMedia',
      summary: "List the blog's images, newest first",
      description: "The blog's images, newest first, a page at a time (`page`, `per_page` up to 100), under `data` like every other list.",
      tag: 'media',
      scope: 'media:read',
      blogScoped: true,
      query: listMediaQuery,
      status: 200,
      response: mediaListSchema,
      handler: async (ctx) => {
        const blog = blogOf(ctx);
        const query = ctx.state.query as ListMediaQuery;
        const { media: items, total } = await media.list(blog, query.page, query.per_page);
        ctx.body = { data: items.map((m) => presentMedia(m, urls.origin(blog))), pagination: presentPagination(query.page, query.per_page, total) };
      },
    },
    {
      method: 'GET',
      path: '/media/:id',
      operationId: 'getMedia',
      summary: 'Get one image',
      description: 'One image of the blog with its URLs, size, variants and og:image crop.',
      tag: 'media',
      scope: 'media:read',
      blogScoped: true,
      status: 200,
      response: mediaSchema,
      handler: async (ctx) => {
        const blog = blogOf(ctx);
        ctx.body = presentMedia(await media.get(blog, ctx.params.id ?? ''), urls.origin(blog));
      },
    },
    {
      method: 'DELETE',
      path: '/media/:id',
      operationId: 'deleteMedia',
      summary: 'Delete an image and its variants (409 while a published or scheduled post uses it)',
      description:
        'Removes the image and every variant from the store and the CDN. Refused with 409 while a published or scheduled post shows it (the message names the post); drafts do not hold it.',
      tag: 'media',
      scope: 'media:write',
      blogScoped: true,
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await media.delete(blogOf(ctx), ctx.params.id ?? '');
        ctx.body = { deleted: true };
      },
    },
  ];
}
