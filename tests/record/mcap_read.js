// Reads a botwire MCAP record with Foxglove's own MCAP readers (npm's
// @mcap/core, @mcap/support for the compressions, @mcap/nodejs for the
// file), through its summary and indexes as Foxglove does: the header,
// the statistics, the channels, the metadata, then every message by the
// chunk indexes. Prints a line each ("header ...", "channel ...",
// "metadata ...", "topic TOPIC COUNT BYTES", "statistics ..."), and writes
// the /wire/* messages as a JSON Lines record (the format's other form) to
// OUT, so that `botwire decode` can read the same bytes both ways. The
// CDR topics are decoded by Foxglove's ROS 2 readers (@foxglove/rosmsg
// parses each channel's ros2msg schema, @foxglove/rosmsg2-serialization
// reads the CDR): "odom COUNT X Y FRAME CHILD" (the last), "odom_v V" (the
// last one's forward speed), "tf PARENT CHILD" (each pair seen), "static
// PARENT CHILD" (of /tf_static), "range TOPIC COUNT FRAME R" (the last),
// "diagnostics COUNT ONLINE" and "diagnostics_t T" (the last one's, T its
// time from the record's start in s), "battery COUNT V".
// A streaming pass with CRC checks reads the file once more, record by
// record, and says how many /wire/* messages each chunk holds, in the
// file's order ("chunk_wire OFFSET COUNT"): the JSON Lines record's lines
// in the same order, chunk by chunk. Exit 1 on any error.
// With --stream, only the streaming reader, as a file a recorder killed
// mid-run (no summary) is read: the messages of its complete chunks go to
// OUT, and "stream complete|incomplete COUNTS".
// usage: node mcap_read.js [--stream] FILE.mcap OUT.jsonl
// (CommonJS, so that NODE_PATH finds the packages.)
"use strict";
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const { FileHandleReadable } = require("@mcap/nodejs");
const { loadDecompressHandlers } = require("@mcap/support");
const { open, readFile, writeFile } = require("node:fs/promises");
const { parse: parseMsg } = require("@foxglove/rosmsg");
const { MessageReader } = require("@foxglove/rosmsg2-serialization");

const args = process.argv.slice(2);
const streamOnly = args[0] === "--stream";
const [file, out] = streamOnly ? args.slice(1) : args;

/* a /wire/* message as a JSON Lines record's line, t to the microsecond */
function line(topic, logTime, start, data) {
  const us = (logTime - start) / 1000n;
  const t = `${us / 1000000n}.${String(us % 1000000n).padStart(6, "0")}`;
  return `{"t":${t},"from":"${topic.slice(6)}","data":"${Buffer.from(data).toString("hex")}"}`;
}
/* a schema's CDR reader, from its ros2msg text */
function cdrReader(schema) {
  return new MessageReader(parseMsg(new TextDecoder().decode(schema.data), { ros2: true }));
}
/* the bytes a /wire/* message holds: a botwire_msgs/msg/Wire decoded by its
 * schema (botwire's older records: the message bare) */
function wireBytes(channel, reader, data) {
  if (channel.messageEncoding !== "cdr") return data;
  if (!reader) throw new Error(`${channel.topic}: cdr without a schema`);
  return reader.readMessage(data).data;
}
function headLine(head) {
  return JSON.stringify({ botwire_record: 1, url: head.url, family: head.family, start: head.start });
}

async function main() {
const decompressHandlers = await loadDecompressHandlers();
if (streamOnly) {
  const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  stream.append(await readFile(file));
  const kinds = {}, channels = new Map(), schemas = new Map(), lines = [];
  let start = null;
  for (let r; (r = stream.nextRecord()); ) {
    kinds[r.type] = (kinds[r.type] ?? 0) + 1;
    if (r.type === "Schema") schemas.set(r.id, r);
    if (r.type === "Channel") channels.set(r.id, r);
    if (r.type === "Metadata" && r.name === "botwire") {
      const head = Object.fromEntries(r.metadata);
      start = BigInt(head.start_ns);
      lines.push(headLine(head));
    }
    if (r.type === "Message") {
      const ch = channels.get(r.channelId);
      const schema = schemas.get(ch.schemaId);
      if (ch.topic.startsWith("/wire/"))
        lines.push(line(ch.topic, r.logTime, start, wireBytes(ch, schema && cdrReader(schema), r.data)));
    }
  }
  await writeFile(out, lines.join("\n") + "\n");
  console.log(`stream ${stream.done() ? "complete" : "incomplete"} ${JSON.stringify(kinds)}`);
  return;
}
const fh = await open(file, "r");
const reader = await McapIndexedReader.Initialize({
  readable: new FileHandleReadable(fh),
  decompressHandlers,
});
console.log(`header ${reader.header.profile} ${JSON.stringify(reader.header.library)}`);
const st = reader.statistics;
if (!st) throw new Error("no statistics in the summary");
console.log(`statistics messages ${st.messageCount} chunks ${st.chunkCount} channels ${st.channelCount} chunk_indexes ${reader.chunkIndexes.length}`);
for (const ch of reader.channelsById.values())
  console.log(`channel ${ch.topic} ${ch.messageEncoding} schema ${ch.schemaId}`);
let head = null;
for await (const m of reader.readMetadata({ name: "botwire" })) {
  head = Object.fromEntries(m.metadata);
  console.log(`metadata ${m.name} ${JSON.stringify(head)}`);
}
if (!head) throw new Error("no botwire metadata");
const start = BigInt(head.start_ns);
const counts = new Map();
const lines = [headLine(head)];
for (const c of reader.chunkIndexes)
  console.log(`chunk ${c.chunkStartOffset} ${c.chunkLength} ${c.compression || "none"}`);
const readers = new Map();
for (const ch of reader.channelsById.values()) {
  if (ch.messageEncoding !== "cdr") continue;
  const schema = reader.schemasById.get(ch.schemaId);
  if (!schema || schema.encoding !== "ros2msg") throw new Error(`${ch.topic}: no ros2msg schema`);
  readers.set(ch.id, cdrReader(schema));
  console.log(`schema ${ch.topic} ${schema.name}`);
}
let odom = null, odoms = 0, diags = 0, online = "-", diagAt = 0n, batteries = 0, volts = 0;
const pairs = new Set(), statics = new Set(), ranges = new Map();
for await (const msg of reader.readMessages()) {
  const ch = reader.channelsById.get(msg.channelId);
  const cdr = readers.get(ch.id);
  const wire = ch.topic.startsWith("/wire/");
  const bytes = wire ? wireBytes(ch, cdr, msg.data) : msg.data;
  if (cdr && !wire) {
    const m = cdr.readMessage(msg.data);
    const name = ch.topic.replace(/^\/[^/]+(?=\/(odom|range|battery|events|bumper|cliff|wheel_drop)\b)/, "");
    if (name === "/odom" || name.endsWith("/odom")) {
      odoms++;
      odom = m;
    } else if (ch.topic === "/tf") {
      for (const t of m.transforms) pairs.add(`${t.header.frame_id} ${t.child_frame_id}`);
    } else if (ch.topic === "/tf_static") {
      for (const t of m.transforms) statics.add(`${t.header.frame_id} ${t.child_frame_id}`);
    } else if (ch.topic.includes("/range/")) {
      const r = ranges.get(ch.topic) ?? { n: 0 };
      r.n++;
      r.frame = m.header.frame_id;
      r.range = m.range;
      ranges.set(ch.topic, r);
    } else if (ch.topic === "/diagnostics") {
      diags++;
      diagAt = msg.logTime;
      for (const st of m.status)
        for (const kv of st.values) if (kv.key === "online") online = kv.value;
    } else if (name.endsWith("/battery")) {
      batteries++;
      volts = m.voltage;
    }
  }
  const c = counts.get(ch.topic) ?? { n: 0, bytes: 0 };
  c.n++;
  c.bytes += bytes.length;
  counts.set(ch.topic, c);
  if (wire) lines.push(line(ch.topic, msg.logTime, start, bytes));
}
for (const [topic, c] of counts) console.log(`topic ${topic} ${c.n} ${c.bytes}`);
if (odom) {
  const p = odom.pose.pose.position;
  console.log(`odom ${odoms} ${p.x.toFixed(4)} ${p.y.toFixed(4)} ${odom.header.frame_id} ${odom.child_frame_id}`);
  console.log(`odom_v ${odom.twist.twist.linear.x.toFixed(4)}`);
}
for (const pair of pairs) console.log(`tf ${pair}`);
for (const pair of statics) console.log(`static ${pair}`);
for (const [topic, r] of ranges) console.log(`range ${topic} ${r.n} ${r.frame} ${r.range}`);
if (diags) {
  console.log(`diagnostics ${diags} ${online}`);
  console.log(`diagnostics_t ${(Number(diagAt - start) / 1e9).toFixed(6)}`);
}
if (batteries) console.log(`battery ${batteries} ${volts.toFixed(2)}`);
await writeFile(out, lines.join("\n") + "\n");
await fh.close();

const stream = new McapStreamReader({ decompressHandlers, validateCrcs: true, includeChunks: true });
stream.append(await readFile(file));
const kinds = {}, wireIds = new Set(), perChunk = [];
for (let r; (r = stream.nextRecord()); ) {
  kinds[r.type] = (kinds[r.type] ?? 0) + 1;
  if (r.type === "Channel" && r.topic.startsWith("/wire/")) wireIds.add(r.id);
  if (r.type === "Chunk") perChunk.push(0);
  if (r.type === "Message" && wireIds.has(r.channelId) && perChunk.length) perChunk[perChunk.length - 1]++;
}
const offsets = reader.chunkIndexes.map((c) => c.chunkStartOffset).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
if (offsets.length !== perChunk.length)
  throw new Error(`${perChunk.length} chunks streamed, ${offsets.length} indexed`);
perChunk.forEach((n, i) => console.log(`chunk_wire ${offsets[i]} ${n}`));
console.log(`stream ${stream.done() ? "complete" : "incomplete"} ${JSON.stringify(kinds)}`);
}
main().catch((e) => {
  console.error(`mcap_read: ${e.message}`);
  process.exit(1);
});
