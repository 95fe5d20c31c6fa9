"use client";

import { createContext, useContext, useMemo, type ReactNode } from "react";
import { Streamdown } from "streamdown";
import { assistantMarkdownPlugins, type ImagePolicy } from "./assistant-markdown-plugins";

const ImagePolicyContext = createContext<ImagePolicy>({ appOrigin: null, imageOrigins: [] });

/** Gives assistant markdown below it the image policy the server read (see docs/security.md). */
export function ImagePolicyProvider(props: ImagePolicy & { children: ReactNode }) {
  const { appOrigin, imageOrigins, children } = props;
  const value = useMemo(() => ({ appOrigin, imageOrigins }), [appOrigin, imageOrigins]);
  return <ImagePolicyContext value={value}>{children}</ImagePolicyContext>;
}

/** An assistant's markdown, with images limited like the CSP's `img-src`. */
export function AssistantMarkdown({ children }: { children: string }) {
  const policy = useContext(ImagePolicyContext);
  const plugins = useMemo(() => assistantMarkdownPlugins(policy), [policy]);
  return <Streamdown rehypePlugins={plugins}>{children}</Streamdown>;
}
