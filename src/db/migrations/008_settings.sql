-- Settings every process on one data dir must agree on, recorded by the server at start-up.
-- First use: the settings that shape public URLs (FOLIO_SERVICE_DOMAIN, FOLIO_PUBLIC_SCHEME),
-- which are baked into every rendered page: a CLI run without the server's environment used
-- to re-render blogs with `localhost:3000` URLs. See src/services/publicUrlSettings.ts.

CREATE TABLE settings (
  key         TEXT PRIMARY KEY,
  value       TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
