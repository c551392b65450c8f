// A real Foxglove client (@foxglove/ws-protocol over the ws package) against
// botwire's live view: the emulator's view (botwire sim --view) for the
// true pose, the driver's view (botwire view URL) to drive.
// usage: node foxglove_check.js SIM_WS VIEW_WS
// Prints "ok: ..." or "FAIL: ..." per check, then "truth X Y DEG" (the last
// true pose heard); exits 1 on a failure. Every wait is for a message, with
// a deadline only as a guard.
"use strict";
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");

const [simUrl, viewUrl] = process.argv.slice(2);
let failures = 0;
const ok = (msg) => console.log(`ok: ${msg}`);
const fail = (msg) => {
  console.log(`FAIL: ${msg}`);
  failures++;
};
const decoder = new TextDecoder();

// Connects and resolves once the server has said what it has.
function connect(url) {
  return new Promise((resolve, reject) => {
    const client = new FoxgloveClient({
      ws: new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]),
    });
    const conn = { client, info: null, channels: new Map(), statuses: [], handlers: new Map() };
    client.on("serverInfo", (info) => (conn.info = info));
    client.on("status", (s) => conn.statuses.push(s));
    client.on("error", (e) => reject(e));
    client.on("advertise", (chans) => {
      for (const c of chans) conn.channels.set(c.topic, c);
      resolve(conn);
    });
    client.on("message", ({ subscriptionId, data }) => {
      const h = conn.handlers.get(subscriptionId);
      if (h) h(JSON.parse(decoder.decode(data)));
    });
  });
}

function subscribe(conn, topic, handler) {
  const ch = conn.channels.get(topic);
  if (!ch) throw new Error(`no channel ${topic} (has ${[...conn.channels.keys()].join(" ")})`);
  const id = conn.client.subscribe(ch.id);
  conn.handlers.set(id, handler);
  return ch;
}

// Resolves when pred(msg) holds for a message of the stream; rejects after
// `guard` ms (a guard against a hang, not a timing under test).
function until(stream, pred, guard, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing within ${guard} ms`)), guard);
    stream.waiters.push((m) => {
      if (!pred(m)) return false;
      clearTimeout(timer);
      resolve(m);
      return true;
    });
  });
}

function stream() {
  const s = { last: null, count: 0, waiters: [], times: [] };
  s.push = (m) => {
    s.last = m;
    s.count++;
    s.times.push(Date.now());
    s.waiters = s.waiters.filter((w) => !w(m));
  };
  return s;
}

const yaw = (q) => 2 * Math.atan2(q.z, q.w);

async function main() {
  const sim = await connect(simUrl);
  ok(`emulator's view: ${sim.info.name}, ${sim.channels.size} channels`);
  const truth = stream();
  const ch = subscribe(sim, "/robot1/truth", (m) => truth.push(m));
  if (ch.schemaName === "foxglove.PoseInFrame") ok("/robot1/truth is a foxglove.PoseInFrame");
  else fail(`/robot1/truth has schema ${ch.schemaName}`);

  // At least 10 messages a second: 21 messages, measured between the first
  // and the last.
  await until(truth, () => truth.count >= 21, 5000, "21 true poses");
  const span = (truth.times[20] - truth.times[0]) / 1000;
  const rate = 20 / span;
  if (rate >= 10) ok(`true pose at ${rate.toFixed(1)} messages/s`);
  else fail(`true pose at ${rate.toFixed(1)} messages/s, under 10`);
  if (truth.last.frame_id === "world" && Number.isFinite(truth.last.pose.position.x))
    ok(`true pose in the world: ${JSON.stringify(truth.last.pose.position)}`);
  else fail(`true pose: ${JSON.stringify(truth.last)}`);

  const view = await connect(viewUrl);
  if (view.info.capabilities.includes("clientPublish")) ok("the driver's view takes commands");
  else fail(`the driver's view does not take commands: ${JSON.stringify(view.info)}`);
  const odom = stream();
  subscribe(view, "/robot1/odom", (m) => odom.push(m));
  await until(odom, () => true, 5000, "odometry");
  const x0 = truth.last.pose.position.x, y0 = truth.last.pose.position.y;
  const o0 = odom.last.pose.position.x;

  // Drive forward by the client channel, as Foxglove's Teleop panel does.
  const cmd = view.client.advertise({
    topic: "/robot1/cmd_vel",
    encoding: "json",
    schemaName: "botwire.Twist",
    schema: "",
  });
  const twist = (x) =>
    new TextEncoder().encode(
      JSON.stringify({ linear: { x, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } })
    );
  const ticker = setInterval(() => view.client.sendMessage(cmd, twist(0.2)), 100);
  view.client.sendMessage(cmd, twist(0.2));
  try {
    await until(truth, (m) => m.pose.position.x - x0 >= 0.15, 8000, "the robot moving 0.15 m");
    ok(`driven by the client channel: the true pose moved ${(truth.last.pose.position.x - x0).toFixed(3)} m`);
  } catch (e) {
    fail(e.message);
  }
  clearInterval(ticker);
  // No more commands: the driver's command timeout stops the robot. Still
  // when ten true poses in a row agree to the millimetre.
  let still = 0, prev = null;
  try {
    await until(
      truth,
      (m) => {
        const p = m.pose.position;
        still = prev && Math.abs(p.x - prev.x) < 5e-4 && Math.abs(p.y - prev.y) < 5e-4 ? still + 1 : 0;
        prev = { x: p.x, y: p.y };
        return still >= 10;
      },
      5000,
      "the robot stopping"
    );
    ok("commands stopped: the robot stopped");
  } catch (e) {
    fail(e.message);
  }
  await until(odom, () => true, 2000, "odometry after the stop");
  const dt = truth.last.pose.position.x - x0, dy = truth.last.pose.position.y - y0;
  const dodo = odom.last.pose.position.x - o0;
  if (Math.abs(dodo - dt) < 0.02 && Math.abs(dy) < 0.01)
    ok(`odometry ${dodo.toFixed(3)} m against truth ${dt.toFixed(3)} m`);
  else fail(`odometry ${dodo.toFixed(3)} m against truth ${dt.toFixed(3)} m (y ${dy.toFixed(3)})`);

  // A channel that is not a robot's command channel is refused, said.
  const n = view.statuses.length;
  view.client.advertise({ topic: "/robot9/cmd_vel", encoding: "json", schemaName: "x", schema: "" });
  await until(truth, () => view.statuses.length > n, 3000, "a status for a bad advertise");
  ok(`a bad channel is refused: ${view.statuses[n].message}`);

  const p = truth.last.pose;
  console.log(`truth ${p.position.x.toFixed(3)} ${p.position.y.toFixed(3)} ${((yaw(p.orientation) * 180) / Math.PI).toFixed(1)}`);
  sim.client.close();
  view.client.close();
}

main().then(
  () => process.exit(failures ? 1 : 0),
  (e) => {
    fail(e.message);
    process.exit(1);
  }
);
