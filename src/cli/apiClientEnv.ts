/**
 * The API client of the commands that talk to a Folio over HTTP (`folio mcp`, `push`, `pull`),
 * configured from the environment: FOLIO_API_URL (default http://127.0.0.1:3000, what
 * `npm start` listens on), FOLIO_API_KEY (required), FOLIO_BLOG_ID (optional).
 */
import { createFolioClient, type FolioClient } from '../client/folioClient.js';
import { CommandError } from './cliErrors.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:3000';

export interface ApiClientEnv {
  client: FolioClient;
  baseUrl: string;
  blogId: string | undefined;
}

export function apiClientFromEnv(env: Record<string, string | undefined>): ApiClientEnv {
  const apiKey = env.FOLIO_API_KEY?.trim();
  if (!apiKey) throw new CommandError('FOLIO_API_KEY is not set: give the API key this command acts with (see README, "Agents and the command line")');
  const baseUrl = env.FOLIO_API_URL?.trim() || DEFAULT_API_URL;
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new CommandError(`FOLIO_API_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  const blogId = env.FOLIO_BLOG_ID?.trim() || undefined;
  return { client: createFolioClient({ baseUrl, apiKey, ...(blogId ? { blogId } : {}) }), baseUrl, blogId };
}
