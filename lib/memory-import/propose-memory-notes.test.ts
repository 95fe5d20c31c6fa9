import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { proposeFromConversations, proposeFromExportFile, proposeFromPastedText } from "./index";

const chatGpt = [
  {
    title: "Trip planning",
    mapping: {
      a: {
        message: { author: { role: "system" }, content: { parts: ["I am a helpful assistant."] } },
      },
      b: {
        message: {
          author: { role: "user" },
          content: {
            parts: ["I live in Lyon and I work as a nurse. Can you plan a trip? What about Rome?"],
          },
        },
      },
      c: { message: { author: { role: "assistant" }, content: { parts: ["I'm happy to help."] } } },
      d: {
        message: {
          author: { role: "user" },
          content: { parts: ["Please always answer in French."] },
        },
      },
      e: { message: null },
    },
  },
];
const claude = [
  {
    name: "Code review",
    chat_messages: [
      { sender: "human", text: "My team uses TypeScript and Postgres. Write a query for me." },
      { sender: "assistant", text: "I prefer short queries." },
    ],
  },
];

describe("memory import proposals", () => {
  it("proposes the person's statements about themselves from a ChatGPT export, not questions or the assistant's words", () => {
    expect(proposeFromConversations(JSON.stringify(chatGpt))).toEqual([
      { text: "I live in Lyon and I work as a nurse.", source: "“Trip planning”" },
      { text: "Please always answer in French.", source: "“Trip planning”" },
    ]);
  });

  it("reads a Claude export and a zipped export", async () => {
    expect(proposeFromConversations(JSON.stringify(claude))).toEqual([
      { text: "My team uses TypeScript and Postgres.", source: "“Code review”" },
    ]);
    const zip = new JSZip();
    zip.file("conversations.json", JSON.stringify(chatGpt));
    const bytes = await zip.generateAsync({ type: "uint8array" });
    expect(await proposeFromExportFile({ name: "export.zip", bytes })).toHaveLength(2);
    const empty = await new JSZip().generateAsync({ type: "uint8array" });
    await expect(proposeFromExportFile({ name: "photos.zip", bytes: empty })).rejects.toThrow(
      /photos\.zip: no conversations\.json/,
    );
    expect(() => proposeFromConversations("{nope")).toThrow(/not valid JSON/);
  });

  it("splits a pasted answer into one proposal per item, without the framing", () => {
    const pasted = `Here's what I remember about you:\n\n## Work\n- You are a product manager at Acme.\n- **Tools**: Linear and Figma\n1. You prefer short answers.\n- You are a product manager at Acme.\n\nYou have two cats. You run on Sundays.\n\nLet me know if anything is wrong!`;
    expect(proposeFromPastedText(pasted).map((proposal) => proposal.text)).toEqual([
      "You are a product manager at Acme.",
      "Tools: Linear and Figma",
      "You prefer short answers.",
      "You have two cats.",
      "You run on Sundays.",
    ]);
  });
});
