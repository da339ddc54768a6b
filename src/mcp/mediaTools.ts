/** The MCP tools of a blog's images (toolKit.ts for the parts, tools.ts for the list). */
import { annotations, blogIdArg, blogOf, idempotencyKeyArg, idsOnly, pageArgs, str, without, writeOf, type FolioTool } from './toolKit.js';

const mediaId = { type: 'string', description: 'The id of the image (list_media gives them)' } as const;
const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif'];

export const MEDIA_TOOLS: readonly FolioTool[] = [
  {
    name: 'upload_media',
    description:
      "Uploads an image (JPEG, PNG, WebP, AVIF or GIF, at most 10 MB) to the blog's media; answers with its URL and variants, usable in posts' Markdown and as meta.og_image.",
    inputSchema: idsOnly(
      {
        blog_id: blogIdArg,
        data_base64: { type: 'string', minLength: 1, description: 'The image bytes, base64-encoded' },
        content_type: { enum: IMAGE_TYPES, description: 'The format of the image' },
        idempotency_key: idempotencyKeyArg,
      },
      ['data_base64', 'content_type'],
    ),
    annotations: annotations('Upload an image', 'write'),
    run: (client, args) => client.uploadMedia(Buffer.from(str(args, 'data_base64'), 'base64'), str(args, 'content_type'), blogOf(args), writeOf(args)),
  },
  {
    name: 'list_media',
    description: "Lists the blog's images, newest first, with their URLs and sizes, with pagination.",
    inputSchema: idsOnly({ blog_id: blogIdArg, ...pageArgs }),
    annotations: annotations('List images', 'read'),
    run: (client, args) => client.listMedia(without(args, 'blog_id'), blogOf(args)),
  },
  {
    name: 'get_media',
    description: 'Returns one image with its URL, size, variants and og:image crop.',
    inputSchema: idsOnly({ blog_id: blogIdArg, media_id: mediaId }, ['media_id']),
    annotations: annotations('Read an image', 'read'),
    run: (client, args) => client.getMedia(str(args, 'media_id'), blogOf(args)),
  },
  {
    name: 'delete_media',
    description: 'Deletes an image and its variants. Refused (conflict) while a published or scheduled post shows it; the message names the post.',
    inputSchema: idsOnly({ blog_id: blogIdArg, media_id: mediaId }, ['media_id']),
    annotations: annotations('Delete an image', 'destructive'),
    run: (client, args) => client.deleteMedia(str(args, 'media_id'), blogOf(args)),
  },
];
