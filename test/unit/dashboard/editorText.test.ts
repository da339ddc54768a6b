import { afterAll, describe, expect, it } from 'vitest';
import { localInputToUtc, utcToLocalInput } from '../../../web/dashboard/editor/localTime.js';
import { createBody, type PostFields, tagsFromText, updateBody } from '../../../web/dashboard/editor/postFields.js';
import { canSchedule, scheduleRefusal } from '../../../web/dashboard/editor/schedulePlan.js';
import { hasChanges, lineDiff } from '../../../web/dashboard/editor/textDiff.js';

describe('schedule times in the author’s time zone', () => {
  const previous = process.env.TZ;
  afterAll(() => {
    if (previous === undefined) delete process.env.TZ;
    else process.env.TZ = previous;
  });

  it('stores Seoul wall-clock time as UTC and shows it back', () => {
    process.env.TZ = 'Asia/Seoul';
    expect(localInputToUtc('2026-12-01T09:30')).toBe('2026-12-01T00:30:00.000Z');
    expect(utcToLocalInput('2026-12-01T00:30:00.000Z')).toBe('2026-12-01T09:30');
  });

  it('follows daylight saving time in New York', () => {
    process.env.TZ = 'America/New_York';
    expect(localInputToUtc('2026-07-01T12:00')).toBe('2026-07-01T16:00:00.000Z');
    expect(localInputToUtc('2026-12-01T12:00')).toBe('2026-12-01T17:00:00.000Z');
    // 02:30 on the spring-forward day does not exist there.
    expect(localInputToUtc('2026-03-08T02:30')).toBeNull();
  });

  it('refuses what is not a date and time', () => {
    expect(localInputToUtc('')).toBeNull();
    expect(localInputToUtc('tomorrow')).toBeNull();
    expect(localInputToUtc('2026-13-45T25:00')).toBeNull();
    expect(utcToLocalInput('nonsense')).toBe('');
  });
});

describe('the post body the editor sends', () => {
  const base: PostFields = { title: '안녕', content: '본문', tags: 'a, b', slug: '안녕', description: 'made', ogImage: '' };

  it('sends only what changed since the version loaded', () => {
    expect(updateBody(base, base)).toEqual({});
    expect(updateBody({ ...base, content: '새 본문' }, base)).toEqual({ content: '새 본문' });
    expect(updateBody({ ...base, tags: ' b ,a,, a ' }, base)).toEqual({ tags: ['b', 'a'] });
    expect(updateBody({ ...base, tags: 'a,b' }, base)).toEqual({});
  });

  it('sends an emptied description or image as null, and never an empty slug', () => {
    expect(updateBody({ ...base, description: ' ' }, base)).toEqual({ meta: { description: null } });
    expect(updateBody({ ...base, ogImage: 'https://example.com/a.png' }, base)).toEqual({ meta: { og_image: 'https://example.com/a.png' } });
    expect(updateBody({ ...base, slug: '' }, base)).toEqual({});
  });

  it('creates a draft, leaving empty optional fields to the API', () => {
    expect(createBody({ title: 'T', content: '', tags: '', slug: '', description: '', ogImage: '' })).toEqual({
      title: 'T',
      content: '',
      tags: [],
      status: 'draft',
    });
    expect(tagsFromText('서울,  부산 ,서울')).toEqual(['서울', '부산']);
  });
});

describe('the readable difference', () => {
  it('marks removed and added lines and folds long unchanged stretches', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'line ten');
    const lines = lineDiff(before, after);
    expect(hasChanges(lines)).toBe(true);
    expect(lines.filter((l) => l.kind === 'removed')).toEqual([{ kind: 'removed', text: 'line 10' }]);
    expect(lines.filter((l) => l.kind === 'added')).toEqual([{ kind: 'added', text: 'line ten' }]);
    expect(lines[0]).toEqual({ kind: 'folded', count: 8 });
    expect(lines.at(-1)).toEqual({ kind: 'folded', count: 7 });
    expect(lines.filter((l) => l.kind === 'same').map((l) => (l as { text: string }).text)).toEqual(['line 8', 'line 9', 'line 11', 'line 12']);
  });

  it('says when two texts are the same', () => {
    expect(hasChanges(lineDiff('같다\n', '같다\n'))).toBe(false);
  });
});

describe('who may schedule', () => {
  it('is Creator and up, and a refusal names both plans', () => {
    expect(['free', 'starter'].map(canSchedule)).toEqual([false, false]);
    expect(['creator', 'scale', 'enterprise'].map(canSchedule)).toEqual([true, true, true]);
    expect(scheduleRefusal('free')).toBe('Scheduling needs the Creator plan or higher; this account is on the Free plan.');
  });
});
