/**
 * The examples of the dashboard sign-in operations (sessions, password), a part of
 * OPERATION_EXAMPLES (examples.ts) kept apart so that file stays readable.
 */
import { CREATED } from './exampleValues.js';

export const SESSION_EXAMPLES = {
  listSessions: {
    response: {
      data: [
        {
          id: '0d9c6f1e-3b2a-4c5d-8e7f-1a2b3c4d5e6f',
          created_at: CREATED,
          last_used_at: CREATED,
          expires_at: '2026-12-25T16:27:28.690Z',
          user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
          current: true,
        },
      ],
    },
  },
  revokeSession: { response: { deleted: true } },
  setPassword: {
    request: { current_password: 'correct horse battery', new_password: 'staple and a longer one' },
    response: { updated: true, ended_sessions: 2 },
  },
};
