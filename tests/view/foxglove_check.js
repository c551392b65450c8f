// A real Foxglove client (@foxglove/ws-protocol over the ws package) against
// botwire's live view: the emulator's view (botwire sim --view) for the
// true pose, the driver's view (botwire view URL) to drive.
// usage: node foxglove_check.js SIM_WS VIEW_WS
// Prints "ok: ..." or "FAIL: ..." per check, then "truth X Y DEG" (the last
// true pose heard); exits 1 on a failure. Every wait is for a message, with
// a deadline only as a guard against a hang (GUARD: tens of seconds, which
// no working build on a loaded machine comes near); times are the
// messages' own stamps, never when this client got them.
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
const GUARD = 30000; // ms
const stamp = (m) => m.timestamp.sec + m.timestamp.nsec / 1e9;

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
  const s = { last: null, count: 0, waiters: [] };
  s.push = (m) => {
    s.last = m;
    s.count++;
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

  // At least 10 messages a second (the view publishes every 50 ms): the
  // median of 20 gaps between the stamps the emulator's view put on them
  // when it published, at most 0.1 s. When this client reads them does not
  // count (a machine that holds it back delivers them in bursts); a
  // machine that holds the emulator back lengthens a gap now and then
  // (and the next one is shorter, as the view catches up), which the
  // median passes over. A view publishing at under 10 a second has every
  // gap over 0.1 s.
  const stamps = [];
  await until(truth, (m) => stamps.push(stamp(m)) >= 21, GUARD, "21 true poses");
  const gaps = stamps.slice(1).map((t, i) => t - stamps[i]).sort((a, b) => a - b);
  const median = (gaps[9] + gaps[10]) / 2;
  if (median <= 0.1) ok(`true pose every ${(median * 1000).toFixed(0)} ms (median), ${(1 / median).toFixed(1)} messages/s`);
  else fail(`true pose every ${(median * 1000).toFixed(0)} ms (median): under 10 messages/s`);
  if (truth.last.frame_id === "world" && Number.isFinite(truth.last.pose.position.x))
    ok(`true pose in the world: ${JSON.stringify(truth.last.pose.position)}`);
  else fail(`true pose: ${JSON.stringify(truth.last)}`);

  const view = await connect(viewUrl);
  if (view.info.capabilities.includes("clientPublish")) ok("the driver's view takes commands");
  else fail(`the driver's view does not take commands: ${JSON.stringify(view.info)}`);
  const odom = stream(), state = stream();
  subscribe(view, "/robot1/odom", (m) => odom.push(m));
  subscribe(view, "/robot1/state", (m) => state.push(m));
  await until(odom, () => true, GUARD, "odometry");
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
  let lastSent = 0;
  const send = () => {
    view.client.sendMessage(cmd, twist(0.2));
    lastSent = Date.now() / 1000;
  };
  const ticker = setInterval(send, 100);
  send();
  try {
    await until(truth, (m) => m.pose.position.x - x0 >= 0.15, GUARD, "the robot moving 0.15 m");
    ok(`driven by the client channel: the true pose moved ${(truth.last.pose.position.x - x0).toFixed(3)} m`);
  } catch (e) {
    fail(e.message);
  }
  clearInterval(ticker);
  // No more commands: the driver lets the last go after its 0.5 s hold, and
  // stops the robot. Its view says so: a state it published after the last
  // command went, whose command is older than that (a driver the machine
  // held back reads the commands that waited meanwhile when it runs again,
  // and drives on them). Then still when ten true poses in a row, published
  // after that, agree to the millimetre.
  let still = 0, prev = null, stillAt = Infinity, freedAt = Infinity;
  try {
    const freed = await until(
      state,
      (m) => stamp(m) > lastSent && m.command && m.command.age > 0.5,
      GUARD,
      "the driver letting the last command go"
    );
    freedAt = stamp(freed);
    const m = await until(
      truth,
      (m) => {
        const p = m.pose.position;
        still = prev && Math.abs(p.x - prev.x) < 5e-4 && Math.abs(p.y - prev.y) < 5e-4 ? still + 1 : 0;
        prev = stamp(m) > freedAt ? { x: p.x, y: p.y } : null;
        return still >= 10;
      },
      GUARD,
      "the robot stopping"
    );
    stillAt = stamp(m);
    ok("commands stopped: the robot stopped");
  } catch (e) {
    fail(e.message);
  }
  // The odometry the driver's view published after that (both views stamp
  // with this machine's clock), when the robot had been still for ten of
  // the emulator's messages (half a second) and the driver had read its
  // frames of the rest. One published earlier may still be on its way to
  // this client, which reads the two servers' sockets in no set order.
  await until(odom, (m) => stamp(m) > stillAt, GUARD, "odometry after the stop");
  const dt = truth.last.pose.position.x - x0, dy = truth.last.pose.position.y - y0;
  const dodo = odom.last.pose.position.x - o0;
  if (Math.abs(dodo - dt) < 0.02 && Math.abs(dy) < 0.01)
    ok(`odometry ${dodo.toFixed(3)} m against truth ${dt.toFixed(3)} m`);
  else fail(`odometry ${dodo.toFixed(3)} m against truth ${dt.toFixed(3)} m (y ${dy.toFixed(3)})`);

  // A channel that is not a robot's command channel is refused, said.
  const n = view.statuses.length;
  view.client.advertise({ topic: "/robot9/cmd_vel", encoding: "json", schemaName: "x", schema: "" });
  await until(truth, () => view.statuses.length > n, GUARD, "a status for a bad advertise");
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
