-- Posts stored their blog's own image URLs with the host baked in (https://<blog>.<service
-- domain>/media/...), so changing FOLIO_SERVICE_DOMAIN broke every image of every post. They are
-- now stored without it (src/media/mediaRefs.ts): `folio-media:<name>` in the Markdown and
-- og_image, root-relative `/media/<name>` in the rendered HTML. This rewrites what is stored,
-- for the hosts the pages were rendered with: the blog's subdomain under the service domain the
-- server recorded (settings, migration 008) and its active custom domain. Nothing is rewritten
-- on a data dir where no server recorded a domain yet; such posts keep working as before.

-- One statement per host: UPDATE … FROM applies one joined row to each post, not all of them.
-- The blog's subdomain:
UPDATE posts
SET content_md = replace(replace(content_md, 'https://' || h.host || '/media/', 'folio-media:'), 'http://' || h.host || '/media/', 'folio-media:'),
    content_html = replace(replace(content_html, 'https://' || h.host || '/media/', '/media/'), 'http://' || h.host || '/media/', '/media/'),
    og_image_url = replace(replace(og_image_url, 'https://' || h.host || '/media/', 'folio-media:'), 'http://' || h.host || '/media/', 'folio-media:')
FROM (SELECT b.id AS blog_id, b.slug || '.' || s.value AS host FROM blogs b JOIN settings s ON s.key = 'service_domain') AS h
WHERE posts.blog_id = h.blog_id
  AND (instr(posts.content_md, h.host || '/media/') > 0 OR instr(posts.content_html, h.host || '/media/') > 0 OR instr(coalesce(posts.og_image_url, ''), h.host || '/media/') > 0);

-- Its active custom domain:
UPDATE posts
SET content_md = replace(replace(content_md, 'https://' || h.host || '/media/', 'folio-media:'), 'http://' || h.host || '/media/', 'folio-media:'),
    content_html = replace(replace(content_html, 'https://' || h.host || '/media/', '/media/'), 'http://' || h.host || '/media/', '/media/'),
    og_image_url = replace(replace(og_image_url, 'https://' || h.host || '/media/', 'folio-media:'), 'http://' || h.host || '/media/', 'folio-media:')
FROM (SELECT d.blog_id, d.hostname AS host FROM domains d WHERE d.status = 'active') AS h
WHERE posts.blog_id = h.blog_id
  AND (instr(posts.content_md, h.host || '/media/') > 0 OR instr(posts.content_html, h.host || '/media/') > 0 OR instr(coalesce(posts.og_image_url, ''), h.host || '/media/') > 0);
