/**
 * /dashboard/account: plan, limits and usage (GET /v1/account), the signed-in browsers with
 * Revoke (GET/DELETE /v1/account/sessions), and the password form (PUT /v1/account/password).
 * The shell says "Loading" until the answers arrive.
 */
import { ApiError, api } from '../lib/api.js';

interface Account {
  id: string;
  email: string | null;
  plan: string;
  limits: { blogs: number | null; requests_per_hour: number };
  usage: { blogs: number };
}

interface SessionEntry {
  id: string;
  created_at: string;
  last_used_at: string;
  expires_at: string;
  user_agent: string;
  current: boolean;
}

const messageOf = (err: unknown): string => (err instanceof ApiError ? err.message : String(err));
const when = (iso: string): string => new Date(iso).toLocaleString();

function set(name: string, text: string): void {
  const element = document.querySelector<HTMLElement>(`#account-facts [data-field="${name}"]`);
  if (element) element.textContent = text;
}

async function showAccount(): Promise<void> {
  const status = document.getElementById('account-status');
  try {
    const { body } = await api<Account>('/account');
    set('email', body.email ?? 'none');
    set('plan', body.plan);
    set('blogs', body.limits.blogs === null ? `${body.usage.blogs} (no limit)` : `${body.usage.blogs} of ${body.limits.blogs}`);
    set('requests', body.limits.requests_per_hour.toLocaleString());
    set('id', body.id);
    document.getElementById('account-facts')?.removeAttribute('hidden');
    status?.remove();
  } catch (err) {
    if (status) status.textContent = `Could not load the account: ${messageOf(err)}`;
  }
}

function cell(text: string): HTMLTableCellElement {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

async function showSessions(): Promise<void> {
  const status = document.getElementById('sessions-status');
  const table = document.getElementById('sessions');
  const rows = table?.querySelector('tbody');
  if (!status || !table || !rows) return;
  try {
    const { body } = await api<{ data: SessionEntry[] }>('/account/sessions');
    rows.replaceChildren(
      ...body.data.map((session) => {
        const tr = document.createElement('tr');
        const label = session.user_agent || 'Unknown browser';
        tr.append(cell(session.current ? `${label} (this browser)` : label), cell(when(session.created_at)), cell(when(session.last_used_at)));
        const action = document.createElement('td');
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'secondary';
        button.textContent = session.current ? 'Sign out' : 'Revoke';
        button.setAttribute('aria-label', session.current ? 'Sign out this browser' : `Revoke the session of ${label}, signed in ${when(session.created_at)}`);
        button.addEventListener('click', () => void revoke(session, button));
        action.append(button);
        tr.append(action);
        return tr;
      }),
    );
    table.hidden = false;
    status.textContent = `${body.data.length} signed-in browser${body.data.length === 1 ? '' : 's'}.`;
  } catch (err) {
    status.textContent = `Could not load the sessions: ${messageOf(err)}`;
  }
}

async function revoke(session: SessionEntry, button: HTMLButtonElement): Promise<void> {
  button.disabled = true;
  const status = document.getElementById('sessions-status');
  try {
    await api(`/account/sessions/${encodeURIComponent(session.id)}`, { method: 'DELETE' });
    if (session.current) {
      window.location.assign('/dashboard/sign-in');
      return;
    }
    await showSessions();
    if (status) status.textContent = 'Session revoked.';
  } catch (err) {
    button.disabled = false;
    if (status) status.textContent = `Could not revoke: ${messageOf(err)}`;
  }
}

function passwordForm(): void {
  const form = document.getElementById('password-form');
  const status = document.getElementById('password-status');
  if (!(form instanceof HTMLFormElement) || !status) return;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const current = (form.elements.namedItem('current_password') as HTMLInputElement).value;
    const next = (form.elements.namedItem('new_password') as HTMLInputElement).value;
    status.removeAttribute('role');
    status.className = '';
    void api<{ ended_sessions: number }>('/account/password', {
      method: 'PUT',
      body: { ...(current ? { current_password: current } : {}), new_password: next },
    }).then(
      ({ body }) => {
        form.reset();
        status.setAttribute('role', 'status');
        status.className = 'notice';
        status.textContent = `Password changed. ${body.ended_sessions} other session${body.ended_sessions === 1 ? '' : 's'} ended.`;
        void showSessions();
      },
      (err: unknown) => {
        status.setAttribute('role', 'alert');
        status.textContent = messageOf(err);
      },
    );
  });
}

passwordForm();
void showAccount();
void showSessions();
