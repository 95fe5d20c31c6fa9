import { defaultRehypePlugins, type StreamdownProps } from "streamdown";

type PluggableList = NonNullable<StreamdownProps["rehypePlugins"]>;
type Pluggable = PluggableList[number];

/** Where images in assistant markdown may load from; the same rule as the CSP's `img-src`. */
export interface ImagePolicy {
  /** The app's own origin as the browser sees it, or null when unknown (relative URLs still load). */
  appOrigin: string | null;
  /** Extra origins an admin allows (`CAIRN_IMAGE_ORIGINS`). */
  imageOrigins: readonly string[];
}

// Relative URLs are resolved against this when the app's origin is unknown; it never loads.
const PLACEHOLDER_ORIGIN = "https://cairn.invalid";

/**
 * Streamdown's rehype plugins with its `harden` step narrowed to images from the app and the
 * origins an admin allows. Streamdown allows every origin by default, so a prompt-injected
 * answer could send memory out in an image URL. A blocked image shows as "[Image blocked: …]".
 * (`data:` images stay allowed here as in the CSP, though Streamdown 2.7's sanitizer drops
 * them anyway.) Links keep Streamdown's defaults.
 */
export function assistantMarkdownPlugins(policy: ImagePolicy): PluggableList {
  const { harden: hardenEntry, ...rest } = defaultRehypePlugins;
  const [harden, defaults] = hardenEntry as [Pluggable, Record<string, unknown>];
  const appOrigin = policy.appOrigin ?? PLACEHOLDER_ORIGIN;
  return [
    ...Object.values(rest),
    [
      harden,
      {
        ...defaults,
        defaultOrigin: appOrigin,
        allowedImagePrefixes: [appOrigin, ...policy.imageOrigins],
        allowDataImages: true,
      },
    ] as Pluggable,
  ];
}
