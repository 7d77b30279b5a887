// The first line of every log: what the file is, which fields its records carry, and which build
// set them. A store reads a log only when it reads every field the header lists, as the kind listed.
import type { PlantField } from '@plant-store/core';
import { name as packageName, version } from '../../package.json';
import { FileStoreError } from '../file-store-error.js';
import { framed } from './file-store-format.js';

/** What every header names as its format, so that a `--data` path at some other file is refused. */
const FORMAT = 'plant-store-log';
/** The format version this build writes: 3, whose header lists the fields and names its writer. */
const VERSION = 3;

/** This build, as a header names it: npm's `name@version`, which `npm install` takes as it is. */
export const WRITER = `${packageName}@${version}`;

/** A field as a header lists it: its name and how its value is held (a {@link PlantField}'s kind). */
export interface HeaderField {
  readonly name: string;
  readonly kind: string;
}

/**
 * The fields a version-2 header stands for: the plant's fields when version 2 was the format. This is
 * history, not the spec: a version-2 file holds these whatever openapi.yaml says now.
 */
const V2_FIELDS: readonly HeaderField[] = [
  { name: 'id', kind: 'int64' },
  { name: 'name', kind: 'string' },
  { name: 'tag', kind: 'string' },
];

/** The version-2 header line, byte for byte: every build of format 2 wrote this one line. */
export const V2_HEADER_LINE = framed('{"format":"plant-store-log","version":2}');

/**
 * The header line of a log whose records carry `fields`, written by this build:
 * `{"format":"plant-store-log","version":3,"writer":"<name>@<version>","fields":[{"name":…,"kind":…},…]}`.
 */
export function headerLine(fields: readonly PlantField[]): Buffer {
  const listed = fields.map((field) => ({ name: field.name, kind: field.kind }));
  return framed(JSON.stringify({ format: FORMAT, version: VERSION, writer: WRITER, fields: listed }));
}

/** What a log's header says. */
export interface LogHeader {
  /** The build that wrote it (`name@version`); a version-2 header names none. */
  readonly writer: string | undefined;
  readonly fields: readonly HeaderField[];
}

// npm's name@version: printable, no spaces; anything else is not a writer a message should repeat.
const WRITER_TEXT = /^[\x21-\x7e]{1,256}$/;

/** Whether `value` is a version-3 header's list of fields: objects of a name and a kind, each name once. */
function isFieldList(value: unknown): value is HeaderField[] {
  if (!Array.isArray(value)) return false;
  const names = new Set<string>();
  for (const field of value as unknown[]) {
    const { name: fieldName, kind } = (field ?? {}) as { name?: unknown; kind?: unknown };
    if (typeof fieldName !== 'string' || typeof kind !== 'string' || names.has(fieldName)) return false;
    names.add(fieldName);
  }
  return true;
}

/**
 * What the parsed first line of a log says, or `undefined` when it is not a plant store header at all.
 * @throws FileStoreError `unsupported` for a header of another format version, or a version-3 header
 * that does not list its fields and writer as this build reads them.
 */
export function readHeader(value: unknown, path: string): LogHeader | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const head = value as { format?: unknown; version?: unknown; writer?: unknown; fields?: unknown };
  if (head.format !== FORMAT) return undefined;
  if (head.version === 2) return { writer: undefined, fields: V2_FIELDS };
  const writer = typeof head.writer === 'string' && WRITER_TEXT.test(head.writer) ? head.writer : undefined;
  if (head.version === VERSION) {
    if (writer !== undefined && isFieldList(head.fields)) return { writer, fields: head.fields };
    throw new FileStoreError(
      'unsupported',
      path,
      `${path} has a version-3 plant store log header that does not name its writer and list its fields as this build (${WRITER}) reads them. Refusing to start, and leaving the file as it is.`,
    );
  }
  throw new FileStoreError(
    'unsupported',
    path,
    `${path} is a plant store log of format version ${String(head.version)}${writer === undefined ? '' : `, written by ${writer}`}; this build (${WRITER}) reads versions 2 and 3. Refusing to start, and leaving the file as it is: open it with ${writer === undefined ? 'the build that wrote it' : `${writer} or newer`}.`,
  );
}

/** What to run on a log that this build refuses, as the end of a message. */
export function remedy(header: LogHeader): string {
  return header.writer === undefined
    ? 'the build that wrote it (log format version 2), or a newer one'
    : `${header.writer} or newer`;
}

/** `name (kind), …` of `fields`. */
function listFields(fields: readonly HeaderField[]): string {
  return fields.map((field) => `${field.name} (${field.kind})`).join(', ');
}

/**
 * The fields of `fields` (a store's shape) that the header does not list: the file holds none of them
 * yet. A header that lists a field the shape lacks, or holds as another kind, means the file was
 * written by a build whose records this one would misread or drop.
 * @throws FileStoreError `unsupported`, naming the writer and the fields, and what to run.
 */
export function fieldsToAdd(header: LogHeader, fields: readonly PlantField[], path: string): string[] {
  const kinds = new Map(fields.map((field) => [field.name, field.kind]));
  const unknown = header.fields.filter((field) => !kinds.has(field.name));
  const differ = header.fields.filter((field) => kinds.has(field.name) && kinds.get(field.name) !== field.kind);
  if (unknown.length > 0 || differ.length > 0) {
    const problems = differ.map(
      (field) => `${field.name} is held as ${field.kind} in the file and as ${kinds.get(field.name)} here`,
    );
    if (unknown.length > 0) {
      problems.unshift(
        `${listFields(unknown)} ${unknown.length === 1 ? 'is' : 'are'} not among its fields, ${listFields(fields)}`,
      );
    }
    throw new FileStoreError(
      'unsupported',
      path,
      `${path} was written by ${header.writer ?? 'a build of log format version 2'} with fields that this build (${WRITER}) does not read: ${problems.join('; ')}. Refusing to start, and leaving the file as it is: open it with ${remedy(header)}.`,
    );
  }
  const listed = new Set(header.fields.map((field) => field.name));
  return fields.filter((field) => !listed.has(field.name)).map((field) => field.name);
}
