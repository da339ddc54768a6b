import type { AccountPasswords } from '../../services/accountPasswords.js';
import { grantOf, type AuthContext } from '../../services/authContext.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { SessionsService } from '../../services/sessions.js';
import { PASSWORD_MAX_CHARS } from '../../services/passwords.js';
import type { RouteDef } from '../routeDef.js';
import { authOf } from '../state.js';
import { dataListSchema, deletedSchema, timestamp } from './schemaParts.js';

const sessionSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    created_at: timestamp,
    last_used_at: { ...timestamp, description: 'Recorded at most once an hour' },
    expires_at: { ...timestamp, description: '30 days after its last use' },
    user_agent: { type: 'string', description: "The first characters of the browser's User-Agent" },
    current: { type: 'boolean', description: 'The session this request was made with' },
  },
} as const;

const passwordBody = {
  type: 'object',
  additionalProperties: false,
  required: ['new_password'],
  properties: {
    current_password: { type: 'string', maxLength: PASSWORD_MAX_CHARS * 4, description: 'Required once the account has a password' },
    new_password: { type: 'string', maxLength: PASSWORD_MAX_CHARS * 4, description: '10 to 256 characters' },
  },
} as const;

const passwordChangedSchema = {
  type: 'object',
  properties: {
    updated: { type: 'boolean', const: true },
    ended_sessions: { type: 'integer', description: "The account's other sessions, ended by the change" },
  },
} as const;

/** Sessions and the password are the account's sign-in: a session or a key with `*` only. */
function fullOf(ctx: Parameters<RouteDef['handler']>[0]): AuthContext {
  const auth = authOf(ctx);
  if (!grantOf(auth).scopes.includes('*')) throw new ForbiddenError("the account's sessions and password need a dashboard session or a key with the * scope");
  return auth;
}

/** The dashboard's sessions and the account's password (docs/dashboard.md). */
export function accountSessionRoutes({ sessions, passwords }: { sessions: SessionsService; passwords: AccountPasswords }): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/account/sessions',
      operationId: 'listSessions',
      summary: "List the account's signed-in dashboard sessions, newest first",
      description:
        'Every live session (browser signed in to the dashboard) with when it was created, last used and expires, and its User-Agent; `current` marks the one making the request. Needs a session or a key with `*`.',
      tag: 'account',
      scope: 'keys:manage',
      status: 200,
      response: dataListSchema(sessionSchema),
      handler: async (ctx) => {
        ctx.body = {
          data: (await sessions.list(fullOf(ctx))).map(({ session, current }) => ({
            id: session.id,
            created_at: session.createdAt,
            last_used_at: session.lastUsedAt,
            expires_at: session.expiresAt,
            user_agent: session.userAgent,
            current,
          })),
        };
      },
    },
    {
      method: 'DELETE',
      path: '/account/sessions/:sessionId',
      operationId: 'revokeSession',
      summary: 'Sign a dashboard session out; it stops working at once',
      description: "Ends one of the account's sessions (the current one included: that signs this browser out). Needs a session or a key with `*`.",
      tag: 'account',
      scope: 'keys:manage',
      status: 200,
      response: deletedSchema,
      handler: async (ctx) => {
        await sessions.revoke(fullOf(ctx), ctx.params.sessionId ?? '');
        ctx.body = { deleted: true };
      },
    },
    {
      method: 'PUT',
      path: '/account/password',
      operationId: 'setPassword',
      summary: "Set or change the account's dashboard password; every other session ends",
      description:
        'Needs a session or a key with `*`. Once the account has a password, `current_password` must be given and right (else 400 or 403). The new one has 10 to 256 characters. Every other session of the account ends (a key ends them all). The account needs an email to sign in with.',
      tag: 'account',
      scope: 'keys:manage',
      body: passwordBody,
      status: 200,
      response: passwordChangedSchema,
      handler: async (ctx) => {
        const body = ctx.state.body as { current_password?: string; new_password: string };
        const change = await passwords.change(fullOf(ctx), body.current_password, body.new_password);
        ctx.body = { updated: true, ended_sessions: change.endedSessions };
      },
    },
  ];
}
