import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from '../../../src/db/sql/placeholders.js';

describe('numberPlaceholders', () => {
  it('numbers the parameters in order', () => {
    expect(numberPlaceholders('SELECT * FROM posts WHERE blog_id = ? AND slug = ? LIMIT ?')).toBe(
      'SELECT * FROM posts WHERE blog_id = $1 AND slug = $2 LIMIT $3',
    );
    expect(numberPlaceholders('SELECT 1')).toBe('SELECT 1');
  });

  it('leaves a ? in string literals, quoted identifiers and comments alone', () => {
    expect(numberPlaceholders("SELECT 'why? it''s ?', ? FROM \"odd?name\" -- really?\nWHERE a = ? /* or ? */ AND b = ?")).toBe(
      "SELECT 'why? it''s ?', $1 FROM \"odd?name\" -- really?\nWHERE a = $2 /* or ? */ AND b = $3",
    );
  });

  it('copies an unterminated literal or comment to the end, numbering nothing in it', () => {
    expect(numberPlaceholders("SELECT ? WHERE a = 'open ?")).toBe("SELECT $1 WHERE a = 'open ?");
    expect(numberPlaceholders('SELECT ? /* open ?')).toBe('SELECT $1 /* open ?');
  });
});
