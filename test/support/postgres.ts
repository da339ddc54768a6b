/** The tests' PostgreSQL: the benches' starter (bench/harness/postgres.ts), one implementation for both. */
export { createPostgresDatabase, postgresBinDir, startPostgres, type Postgres } from '../../bench/harness/postgres.js';
