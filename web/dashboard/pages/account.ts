/**
 * /dashboard/account: plan, limits and usage from GET /v1/account (the shell says "Loading"
 * until they arrive).
 */
import { ApiError, api } from '../lib/api.js';

interface Account {
  id: string;
  email: string | null;
  plan: string;
  limits: { blogs: number | null; requests_per_hour: number };
  usage: { blogs: number };
}

const field = (name: string): HTMLElement | null => document.querySelector<HTMLElement>(`#account-facts [data-field="${name}"]`);

function set(name: string, text: string): void {
  const element = field(name);
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
    if (status) status.textContent = `Could not load the account: ${err instanceof ApiError ? err.message : String(err)}`;
  }
}

void showAccount();
