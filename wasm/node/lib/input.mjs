// Reading recorded events as `hushd replay` reads them: the input is split
// into lines here and pushed into the codec component's `Reader`, which is
// hushd's own reader (hush-input): JSON Lines or one document, lists, dumps,
// and the same messages for bad records.

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
 * `{ position, error }`, read with `json` (the codec's interface): its
 * `Reader` applies hushd's rules line by line (hush-input).
 */
export async function* records(stream, json) {
  const reader = new json.Reader();
  for await (const line of lines(stream)) {
    yield* reader.line(line).map(record);
  }
  yield* reader.finish().map(record);
}

function record({ position, observation }) {
  return observation.tag === 'ok'
    ? { position, at: observation.val.at, event: observation.val.event }
    : { position, error: observation.val };
}
