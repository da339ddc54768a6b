/**
 * What makes one MCP tool call cost one request of the account's hourly budget. A `tools/call`
 * to POST /mcp is counted there; the API requests its tool makes over loopback carry a grant
 * (a random token issued for that /mcp request and that API key, gone when its answer is
 * written), and the rate limiter lets a request with a live grant of its own key through
 * without counting it again. Without this, one call cost the /mcp request and each API call
 * of the tool.
 */
import { randomBytes } from 'node:crypto';

export const MCP_GRANT_HEADER = 'X-Folio-Mcp-Grant';

export class McpGrants {
  private readonly live = new Map<string, string>();

  /** A token for the API calls of one /mcp request made with the key `keyId`. */
  issue(keyId: string): string {
    const token = randomBytes(24).toString('base64url');
    this.live.set(token, keyId);
    return token;
  }

  revoke(token: string): void {
    this.live.delete(token);
  }

  /** Whether `token` is live and was issued for this same key. */
  covers(token: string | undefined, keyId: string): boolean {
    return token !== undefined && token !== '' && this.live.get(token) === keyId;
  }
}
