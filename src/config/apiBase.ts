import type { Config } from './config.js';

/**
 * The API's base URL as users reach it (`https://api.example.com/v1`): FOLIO_PUBLIC_API_URL, or
 * this process's own address. The OpenAPI document, the dashboard's cookies and the sign-in
 * links the server and the CLI print all start from it.
 */
export function publicApiBase(config: Pick<Config, 'publicApiUrl' | 'host' | 'port'>): string {
  return config.publicApiUrl ?? `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}/v1`;
}
