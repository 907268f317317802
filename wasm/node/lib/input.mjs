// Reading recorded events as `hushd replay` reads them: JSON Lines (read as
// they arrive, blank lines skipped) or, when the first line does not hold a
// whole JSON text, one multi-line document (a `kubectl get events -o json`
// list, or a single Event). Parsing is the codec component's, so records
// and their error messages are hushd's.

/** Lines of `stream` split at "\n", a trailing "\r" removed (as Rust's `BufRead::lines`). */
export async function* lines(stream) {
  let pending = [];
  for await (const chunk of stream) {
    let start = 0;
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, i));
      yield text(Buffer.concat(pending));
      pending = [];
      start = i + 1;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield text(Buffer.concat(pending));
}

function text(bytes) {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
  return bytes.toString('utf8', 0, end);
}

/**
 * The records of `stream`, in order, each `{ position, at, event }` or
 * `{ position, error }`, read with `json` (the codec's interface).
 */
export async function* records(stream, json) {
  let number = 0;
  let seenFirst = false;
  let document = null;
  for await (const line of lines(stream)) {
    number += 1;
    if (document !== null) {
      document.lines.push(line);
      continue;
    }
    if (line.trim() === '') continue;
    const position = `line ${number}`;
    try {
      const { at, event } = json.readRecord(line);
      yield { position, at, event };
    } catch (e) {
      const error = e.payload;
      if (error === undefined) throw e;
      if (error.tag === 'incomplete' && !seenFirst) {
        document = { first: number, lines: [line] };
        continue;
      }
      yield { position, error: error.val };
    } finally {
      seenFirst = true;
    }
  }
  if (document !== null) {
    for (const record of json.readDocument(document.lines.join('\n'), document.first)) {
      const { position, observation } = record;
      yield observation.tag === 'ok'
        ? { position, at: observation.val.at, event: observation.val.event }
        : { position, error: observation.val };
    }
  }
}
