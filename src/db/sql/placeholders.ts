/**
 * The seam's SQL uses `?` for parameters (SQLite's style); PostgreSQL numbers them (`$1`, `$2`).
 * A `?` inside a string literal, a quoted identifier or a comment is text, not a parameter.
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      // '' (or "") inside a quoted run is an escaped quote: the run goes on.
      let end = i + 1;
      for (;;) {
        end = sql.indexOf(c, end);
        if (end === -1) {
          end = sql.length;
          break;
        }
        if (sql[end + 1] === c) end += 2;
        else {
          end += 1;
          break;
        }
      }
      out += sql.slice(i, end);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (c === '?') {
      out += `$${++n}`;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
