// The official openai Node SDK (7.55.0) against the gateway, whose upstream
// is the replay (runtime/gateway/replay): the user message's #replay:NAME
// picks the recorded chat stream. GATEWAY_URL is the gateway's /v1 root.
// responses.stream() is strict: it throws on an event out of order, an
// unknown event type, an item never done, a changing response id.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.GATEWAY_URL, apiKey: "sk-test", maxRetries: 0 });
const recorded = "Hello from the Transponder replay upstream: this answer was recorded, not generated.";
const tools = [
  { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: { type: "string" } } }, strict: false },
  { type: "custom", name: "apply_patch", description: "freeform patch" },
];

test("responses.create, not streamed", async () => {
  const r = await client.responses.create({ model: "m", input: "hi #replay:text" });
  assert.equal(r.status, "completed");
  assert.equal(r.output_text, recorded);
  assert.equal(r.usage.total_tokens, 57);
});

test("responses.create, streamed", async () => {
  const stream = await client.responses.create({ model: "m", input: "hi #replay:text", stream: true });
  const types = [];
  let text = "";
  for await (const e of stream) {
    types.push(e.type);
    if (e.type === "response.output_text.delta") text += e.delta;
  }
  assert.equal(types[0], "response.created");
  assert.equal(types.at(-1), "response.completed");
  assert.equal(text, recorded);
});

for (const [name, check] of [
  ["text", (r) => assert.equal(r.output_text, recorded)],
  ["reasoning", (r) => {
    assert.deepEqual(r.output.map((o) => o.type), ["reasoning", "message"]);
    assert.equal(r.output_text, "The answer is 42.");
  }],
  ["parallel", (r) => {
    assert.deepEqual(r.output.map((o) => [o.type, o.name, o.arguments]), [
      ["function_call", "exec_command", '{"cmd":"echo one > one.txt"}'],
      ["function_call", "exec_command", '{"cmd":"echo two > two.txt"}'],
    ]);
  }],
  ["apply_patch", (r) => {
    assert.equal(r.output.length, 1);
    assert.equal(r.output[0].type, "custom_tool_call");
    assert.equal(r.output[0].name, "apply_patch");
    assert.equal(r.output[0].input, "*** Begin Patch\n*** Add File: hello.txt\n+hello from apply_patch\n*** End Patch\n");
  }],
]) {
  test(`responses.stream() + finalResponse(): ${name}`, async () => {
    const stream = client.responses.stream({ model: "m", input: `go #replay:${name}`, tools });
    let deltas = 0;
    stream.on("response.output_text.delta", () => deltas++);
    const final = await stream.finalResponse();
    assert.equal(final.status, "completed");
    check(final);
    if (name === "text") assert.ok(deltas > 1);
  });
}
