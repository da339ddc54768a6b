-- Keys may expire (docs/api-behaviour.md): the instant as ISO 8601 UTC with milliseconds, so
-- that text order is time order. NULL, for every key made before, means it never expires.
ALTER TABLE api_keys ADD COLUMN expires_at TEXT;
