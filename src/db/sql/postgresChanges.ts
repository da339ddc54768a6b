/**
 * The ChangeVersion of a node on PostgreSQL (issue #32): what lets it keep a key by its hash and a
 * blog by id in memory although other nodes write the same database. Triggers on the tables those
 * lookups read (migrations/postgres/025_several_nodes.sql) NOTIFY `folio_changes` when a change
 * commits; one connection of the node LISTENs, and every notice changes the version, which empties
 * the caches. The node's own writes change it at once (PostgresClient.writeCount), before their
 * notice comes back, so a node always reads its own writes.
 *
 * A notice reaches this node a little after its commit, possibly after a client that saw the
 * commit's answer on another node has already sent its next request here. So a cache settles
 * first (settle()): a round trip on the listening connection, which PostgreSQL answers only after
 * the notices of every commit before it (the committing backend signals the listeners before its
 * commit is answered, and a listener sends pending notices ahead of its next ReadyForQuery). One
 * round trip at a time serves every cache lookup that arrived before it was sent, so under load
 * the cost is latency, not a query per request. That makes a revocation on node A fail on node B
 * at the very next request.
 *
 * While the listening connection is down (not yet open, or lost with the server), the version is
 * new at every call: nothing is served from memory until it listens again, since notices sent
 * meanwhile are lost.
 */
import type pg from 'pg';
import { pgModule } from './pgModule.js';
import type { Logger } from '../../lib/logger.js';
import type { ChangeVersion } from '../versionedCache.js';

export const CHANGES_CHANNEL = 'folio_changes';
export const LISTENER_NAME = 'folio-listener';

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

export interface PostgresChangesDeps {
  connectionString: string;
  /** This node's own writes (PostgresClient). */
  writes: { readonly writeCount: number };
  logger: Pick<Logger, 'warn' | 'info'>;
}

export class PostgresChanges implements ChangeVersion {
  private client: pg.Client | null = null;
  private listening = false;
  /** Notices heard, plus one for every time listening started or stopped. */
  private heard = 0;
  /** Calls while not listening: each gets a version no other call had. */
  private deaf = 0;
  private closed = false;
  private retryMs = RECONNECT_MIN_MS;
  private retry: NodeJS.Timeout | undefined;
  /** Said once per outage, not at every retry. */
  private warned = false;
  /** The settling round trip on the wire, and the one after it for callers that came later. */
  private settling: Promise<void> | null = null;
  private nextSettling: Promise<void> | null = null;

  constructor(private readonly deps: PostgresChangesDeps) {}

  /** Starts listening; resolves once it listens or the first attempt failed (it keeps trying). */
  async start(): Promise<void> {
    await this.connect();
  }

  /** Whether notices are being heard (the caches work): /healthz and the tests ask. */
  get isListening(): boolean {
    return this.listening;
  }

  /** Cached lookups never run inside a transaction here: repositories bound to one have no cache. */
  inTransaction(): boolean {
    return false;
  }

  current(): string {
    if (!this.listening) return `deaf:${++this.deaf}`;
    return `${this.heard}:${this.deps.writes.writeCount}`;
  }

  /**
   * Resolves once a round trip sent after this call came back on the listening connection, with
   * the notices PostgreSQL had for it counted. A caller that arrives while one is on the wire
   * waits for the next: the one on the wire may have been answered before its commit.
   */
  settle(): Promise<void> {
    if (!this.listening) return Promise.resolve();
    if (!this.settling) return this.sendSettling();
    this.nextSettling ??= this.settling.then(() => {
      this.nextSettling = null;
      return this.sendSettling();
    });
    return this.nextSettling;
  }

  private sendSettling(): Promise<void> {
    const client = this.client;
    const done: Promise<void> = (client ? client.query('SELECT 1') : Promise.resolve())
      .then(
        () => undefined,
        // Notices may have been lost with the connection: deaf until it listens again.
        () => {
          if (client) this.lost(client);
        },
      )
      .finally(() => {
        if (this.settling === done) this.settling = null;
      });
    this.settling = done;
    return done;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.stopListening();
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    // Named, so that an operator (and a test) can tell it apart in pg_stat_activity.
    const { Client } = pgModule();
    const client = new Client({ connectionString: this.deps.connectionString, application_name: LISTENER_NAME });
    // A lost connection ends listening; the caches go deaf until it is back.
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (notice) => {
      if (notice.channel === CHANGES_CHANNEL) this.heard++;
    });
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      if (!this.warned) this.deps.logger.warn({ err }, 'cannot listen for changes on PostgreSQL; keys and blogs are read from the database until it works');
      this.warned = true;
      this.lost(client);
      return;
    }
    if (this.closed || this.client !== client) return;
    this.heard++;
    this.listening = true;
    this.retryMs = RECONNECT_MIN_MS;
    if (this.warned) this.deps.logger.info({}, 'listening for changes on PostgreSQL again');
    this.warned = false;
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.stopListening();
    this.client = null;
    void client.end().catch(() => undefined);
    if (this.closed) return;
    this.retry = setTimeout(() => void this.connect(), this.retryMs);
    this.retryMs = Math.min(RECONNECT_MAX_MS, this.retryMs * 2);
  }

  private stopListening(): void {
    if (!this.listening) return;
    this.listening = false;
    this.heard++;
  }
}
