-- Several Folio nodes on one database (issue #32, docs/operations.md "Several nodes"): nothing to
-- do on SQLite, which one process serves. PostgreSQL's text is migrations/postgres/025_several_nodes.sql.
SELECT 1;
