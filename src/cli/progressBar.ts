/** A one-line progress bar on stderr (a line per 10% when stderr is not a terminal). */
export function progressBar(label: string): (done: number, total: number) => void {
  const tty = process.stderr.isTTY;
  let last = -1;
  return (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    if (percent === last) return;
    last = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    const line = `${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percent}% (${done}/${total})`;
    if (tty) process.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    else if (percent % 10 === 0) process.stderr.write(`${line}\n`);
  };
}
