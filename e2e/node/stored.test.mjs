// The official openai Node SDK (7.55.0) against the gateway with a store:
// previous_response_id chains, retrieve/delete/inputItems, and the
// Conversations API. The upstream is the replay with the script
// get_weather,text (a request with no assistant message gets the
// get_weather call, one with an assistant message the recorded text; a
// user message's #replay:NAME overrides). UPSTREAM_LOG answers the chat
// requests the upstream received (a JSON array): each test puts a nonce in
// its first user message and finds its own requests by it (the test files
// run at once). GATEWAY_URL is the gateway's /v1 root.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.GATEWAY_URL, apiKey: "sk-test", maxRetries: 0 });
const recorded = "Hello from the Transponder replay upstream: this answer was recorded, not generated.";
const tools = [{
  type: "function", name: "get_weather", strict: false,
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
}];

// chats is the chat requests the upstream received that carry nonce.
async function chats(nonce) {
  const res = await fetch(process.env.UPSTREAM_LOG);
  assert.equal(res.status, 200);
  return (await res.json()).filter((r) => JSON.stringify(r.messages).includes(nonce));
}

// summary is a chat request's messages, one short line each.
function summary(req) {
  return req.messages.map((m) => {
    const text = typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text).join("");
    const calls = (m.tool_calls ?? []).map((c) => `call ${c.id} ${c.function.name}(${c.function.arguments})`).join(" ");
    return `${m.role}:${text}${calls}${m.tool_call_id ? ` for ${m.tool_call_id}` : ""}`;
  });
}

async function isNotFound(promise) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof OpenAI.NotFoundError, `${e}`);
    assert.equal(e.status, 404);
    return true;
  });
}

// Turn 1 calls get_weather; turn 2 sends only the function_call_output
// with previous_response_id and gets the text; the upstream's turn-2
// request carries the whole chain.
for (const streamed of [false, true]) {
  test(`previous_response_id chain with a function_call_output, ${streamed ? "responses.stream()" : "not streamed"}`, async () => {
    const nonce = randomUUID();
    const run = async (body) => streamed
      ? await client.responses.stream(body).finalResponse()
      : await client.responses.create(body);
    const question = `What is the weather in Paris? (${nonce})`;
    const r1 = await run({ model: "m", input: question, tools });
    assert.equal(r1.status, "completed");
    assert.equal(r1.store, true);
    assert.deepEqual(r1.output.map((o) => [o.type, o.name, o.arguments]), [["function_call", "get_weather", '{"city":"Paris"}']]);
    const call = r1.output[0];
    const r2 = await run({
      model: "m", tools, previous_response_id: r1.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: '{"temperature_c":18}' }],
    });
    assert.equal(r2.status, "completed");
    assert.equal(r2.output_text, recorded);
    assert.equal(r2.previous_response_id, r1.id);
    assert.equal(r2.store, true);

    const reqs = await chats(nonce);
    assert.equal(reqs.length, 2);
    assert.deepEqual(reqs.map((r) => r.stream === true), [streamed, streamed]);
    assert.deepEqual(summary(reqs[1]), [
      `user:${question}`,
      `assistant:call ${call.call_id} get_weather({"city":"Paris"})`,
      `tool:{"temperature_c":18} for ${call.call_id}`,
    ]);
  });
}

// retrieve equals what create returned; inputItems pages both ways;
// delete, then retrieve and inputItems are 404s.
test("responses.retrieve, inputItems.list, delete", async () => {
  const nonce = randomUUID();
  const input = [0, 1, 2, 3, 4].map((i) => ({ role: "user", content: `m${i} ${nonce}` }));
  input[4].content += " #replay:text";
  const created = await client.responses.create({ model: "m", input, metadata: { k: nonce } });
  assert.equal(created.output_text, recorded);
  const got = await client.responses.retrieve(created.id);
  assert.deepEqual(got, created);
  assert.equal(got.id, created.id);
  assert.equal(got.status, "completed");
  assert.equal(got.store, true);
  assert.equal(got.output_text, recorded);

  // streamed: retrieve equals the final response (less what
  // responses.stream() adds itself: parsed, output_parsed)
  const final = await client.responses.stream({ model: "m", input: `hi ${nonce} #replay:text` }).finalResponse();
  const unparsed = (r) => JSON.parse(JSON.stringify(r, (k, v) => (k === "parsed" || k === "output_parsed" ? undefined : v)));
  assert.equal(final.output_parsed, null);
  assert.deepEqual(await client.responses.retrieve(final.id), unparsed(final));

  // asc, two a page, with for await over the pages' items
  const asc = [];
  for await (const it of client.responses.inputItems.list(created.id, { order: "asc", limit: 2 })) {
    assert.equal(it.type, "message");
    assert.equal(it.role, "user");
    assert.match(it.id, /^msg_/);
    assert.equal(it.content[0].text, input[asc.length].content);
    asc.push(it.id);
  }
  assert.equal(asc.length, 5);
  assert.equal(new Set(asc).size, 5);
  // desc (the default), page by page
  const pages = [];
  let page = await client.responses.inputItems.list(created.id, { limit: 2 });
  for (;;) {
    pages.push(page.data.map((it) => it.id));
    if (!page.hasNextPage()) break;
    page = await page.getNextPage();
  }
  assert.deepEqual(pages, [[asc[4], asc[3]], [asc[2], asc[1]], [asc[0]]]);
  // after, in both orders
  page = await client.responses.inputItems.list(created.id, { order: "asc", after: asc[1], limit: 2 });
  assert.deepEqual([page.data.map((it) => it.id), page.has_more], [[asc[2], asc[3]], true]);
  page = await client.responses.inputItems.list(created.id, { order: "desc", after: asc[2] });
  assert.deepEqual([page.data.map((it) => it.id), page.has_more], [[asc[1], asc[0]], false]);

  await client.responses.delete(created.id);
  await isNotFound(client.responses.retrieve(created.id));
  await isNotFound(client.responses.inputItems.list(created.id));
  await isNotFound(client.responses.delete(created.id));
});

// A conversation with an initial item and metadata over three turns (the
// second streamed): its items are the initial item, then each turn's
// input and output, in order; the third chat request carries it all. Then
// retrieve/update, items create/retrieve/delete, delete.
test("conversations: three turns, items, update, delete", async () => {
  const nonce = randomUUID();
  const conv = await client.conversations.create({
    items: [{ type: "message", role: "user", content: `My name is Ada. ${nonce}` }],
    metadata: { topic: "names" },
  });
  assert.match(conv.id, /^conv_/);
  assert.equal(conv.object, "conversation");
  assert.deepEqual(conv.metadata, { topic: "names" });
  const initial = await client.conversations.items.list(conv.id);
  assert.equal(initial.data.length, 1);
  const want = [initial.data[0].id];
  const questions = ["Hi! #replay:text", "What is my name? #replay:text", "Bye! #replay:text"];
  for (const [i, q] of questions.entries()) {
    const body = { model: "m", conversation: conv.id, input: q };
    const r = i === 1 ? await client.responses.stream(body).finalResponse() : await client.responses.create(body);
    assert.equal(r.status, "completed");
    assert.deepEqual(r.conversation, { id: conv.id });
    assert.equal(r.output_text, recorded);
    const inputs = await client.responses.inputItems.list(r.id, { order: "asc" });
    assert.deepEqual(inputs.data.map((it) => it.content[0].text), [q]);
    want.push(inputs.data[0].id, ...r.output.map((o) => o.id));
  }
  const reqs = await chats(nonce);
  assert.equal(reqs.length, 3);
  assert.deepEqual(summary(reqs[2]), [
    `user:My name is Ada. ${nonce}`,
    `user:${questions[0]}`, `assistant:${recorded}`,
    `user:${questions[1]}`, `assistant:${recorded}`,
    `user:${questions[2]}`,
  ]);

  // the items: asc three a page (the cursor is last_id), then desc
  const items = [];
  for await (const it of client.conversations.items.list(conv.id, { order: "asc", limit: 3 })) items.push(it);
  assert.deepEqual(items.map((it) => it.id), want);
  assert.deepEqual(items.map((it) => `${it.role}:${it.content[0].text}`), [
    `user:My name is Ada. ${nonce}`,
    `user:${questions[0]}`, `assistant:${recorded}`,
    `user:${questions[1]}`, `assistant:${recorded}`,
    `user:${questions[2]}`, `assistant:${recorded}`,
  ]);
  const desc = [];
  for await (const it of client.conversations.items.list(conv.id, { limit: 4 })) desc.push(it.id);
  assert.deepEqual(desc, [...want].reverse());

  // retrieve, update
  const got = await client.conversations.retrieve(conv.id);
  assert.deepEqual(got, conv);
  const upd = await client.conversations.update(conv.id, { metadata: { topic: "farewells" } });
  assert.deepEqual(upd.metadata, { topic: "farewells" });
  assert.deepEqual((await client.conversations.retrieve(conv.id)).metadata, { topic: "farewells" });

  // items: create, retrieve, delete
  const added = await client.conversations.items.create(conv.id, { items: [{ role: "user", content: "One more thing." }] });
  assert.deepEqual(added.data.map((it) => it.content[0].text), ["One more thing."]);
  const item = await client.conversations.items.retrieve(want[2], { conversation_id: conv.id });
  assert.deepEqual(item, items[2]);
  const after = await client.conversations.items.delete(want[2], { conversation_id: conv.id });
  assert.equal(after.id, conv.id);
  await isNotFound(client.conversations.items.retrieve(want[2], { conversation_id: conv.id }));
  const left = [];
  for await (const it of client.conversations.items.list(conv.id, { order: "asc" })) left.push(it.id);
  assert.deepEqual(left, [...want.slice(0, 2), ...want.slice(3), added.data[0].id]);

  // delete
  assert.deepEqual(await client.conversations.delete(conv.id), { id: conv.id, object: "conversation.deleted", deleted: true });
  await isNotFound(client.conversations.retrieve(conv.id));
  await isNotFound(client.conversations.items.list(conv.id));
  await assert.rejects(client.responses.create({ model: "m", conversation: conv.id, input: "Still there?" }), (e) => {
    assert.equal(e.status, 400);
    assert.equal(e.param, "conversation");
    return true;
  });
});
