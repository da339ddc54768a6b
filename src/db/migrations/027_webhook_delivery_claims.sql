-- Several nodes on one database (#32): a node claims a delivery until `claimed_until` before it
-- sends it, and no node claims a delivery of a webhook that has a claim still running, so each
-- send goes out once and a webhook has one send in flight across all nodes. A claim a dead node
-- left expires; NULL (every row made before) means unclaimed. ISO 8601 UTC, so text order is
-- time order. Shared by SQLite and PostgreSQL.
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until TEXT;
-- Claims are cleared when the attempt is recorded, so this holds only the sends in flight.
CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries(webhook_id, claimed_until) WHERE claimed_until IS NOT NULL;
