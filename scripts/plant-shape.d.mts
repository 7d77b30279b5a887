// Types of plant-shape.mjs: the plant's fields read from openapi.yaml, their messages, and the
// generated modules.

/** One field as the generator reads it (the generated PlantField, with integer bounds as bigints). */
export interface ShapeField {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly kind: 'string' | 'int32' | 'int64' | 'number' | 'boolean';
  readonly format?: string;
  readonly required: boolean;
  readonly answered: boolean;
  readonly key: boolean;
  readonly low?: bigint;
  readonly high?: bigint;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly enum?: readonly (string | number)[];
  readonly examples?: readonly unknown[];
}

/** The fields of a parsed spec's Plant and NewPlant; throws naming any construct it does not support. */
export function readPlantShape(spec: unknown): ShapeField[];
/** The 40002 messages: `notObject`, then `<field>Required` and `<field>Invalid` per field. */
export function plantMessages(fields: readonly ShapeField[]): Record<string, string>;
/** The 40003 message. */
export function conflictMessage(fields: readonly ShapeField[]): string;
export function renderShapeModule(fields: readonly ShapeField[]): string;
export function renderCoreCodec(fields: readonly ShapeField[]): string;
export function renderClientCodec(fields: readonly ShapeField[]): string;
