// madge ships no types: what the house test uses of its API.
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to the common base directory) with the files it imports. */
    obj(): Record<string, string[]>;
    /** Each circle as the files along it. */
    circular(): string[][];
  }
  interface MadgeOptions {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: { ts?: { skipTypeImports?: boolean } };
  }
  export default function madge(paths: string | string[], options?: MadgeOptions): Promise<MadgeResult>;
}
