// The official openai Node SDK (7.55.0) against the gateway's POST
// /v1/chat/completions, whose Responses upstream replays recorded
// Responses streams (runtime/gateway's TestNodeSDKChat): "#rec:NAME" in a
// message picks ../shared/corpus/responses-sse/vercel-NAME.jsonl; a
// request without one takes the next name of the Go test's queue
// (tool-call, then text: what runTools asks). GATEWAY_URL is the
// gateway's /v1 root.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.GATEWAY_URL, apiKey: "sk-test", maxRetries: 0 });
const weather = {
  type: "function",
  function: { name: "weather", parameters: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } },
};

test("chat.completions.create, not streamed and streamed, say the same", async () => {
  const r = await client.chat.completions.create({ model: "gpt-5.1", messages: [{ role: "user", content: "hi #rec:azure-text.1" }] });
  assert.equal(r.object, "chat.completion");
  assert.equal(r.choices[0].finish_reason, "stop");
  assert.ok(r.choices[0].message.content.length > 0);
  assert.ok(r.usage.total_tokens > 0);
  const stream = await client.chat.completions.create({
    model: "gpt-5.1", stream: true, stream_options: { include_usage: true },
    messages: [{ role: "user", content: "hi #rec:azure-text.1" }],
  });
  let text = "", finish = null, usage = null;
  for await (const c of stream) {
    if (c.choices.length > 0) {
      text += c.choices[0].delta.content ?? "";
      finish = c.choices[0].finish_reason ?? finish;
    }
    usage = c.usage ?? usage;
  }
  assert.equal(text, r.choices[0].message.content);
  assert.equal(finish, "stop");
  assert.equal(usage.total_tokens, r.usage.total_tokens);
});

test("chat.completions.stream() + finalChatCompletion(): a tool call", async () => {
  const stream = client.chat.completions.stream({
    model: "gpt-5.1", tools: [weather],
    messages: [{ role: "user", content: "weather in SF? #rec:azure-tool-call.1" }],
  });
  let argDeltas = 0;
  stream.on("tool_calls.function.arguments.delta", () => argDeltas++);
  const final = await stream.finalChatCompletion();
  const msg = final.choices[0].message;
  assert.equal(final.choices[0].finish_reason, "tool_calls");
  assert.equal(msg.tool_calls.length, 1);
  assert.equal(msg.tool_calls[0].function.name, "weather");
  assert.deepEqual(JSON.parse(msg.tool_calls[0].function.arguments), { location: "San Francisco" });
  assert.ok(argDeltas >= 1);
});

test("chat.completions.runTools(): the tool runs, its result goes back, the model answers", async () => {
  const calls = [];
  const runner = client.chat.completions.runTools({
    model: "gpt-5.1",
    messages: [{ role: "user", content: "What is the weather in San Francisco?" }],
    tools: [{
      type: "function",
      function: {
        name: "weather",
        parameters: weather.function.parameters,
        parse: JSON.parse,
        function: (args) => { calls.push(args); return { temperature: 21 }; },
      },
    }],
  });
  const content = await runner.finalContent();
  assert.deepEqual(calls, [{ location: "San Francisco" }]);
  assert.ok(content.length > 0);
  const msgs = runner.messages;
  assert.equal(msgs.filter((m) => m.role === "tool").length, 1);
});
