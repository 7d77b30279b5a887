// The Standard Schema v1 interface (standardschema.dev), the one Zod, Valibot and ArkType implement and
// TanStack Form, react-hook-form's resolvers and others read. Written out here as its authors ask
// libraries to do, so the client keeps no dependency: types only, nothing at run time.

/** A validator any Standard Schema consumer can call: `schema['~standard'].validate(value)`. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  /** The properties of the standard. */
  interface Props<Input = unknown, Output = Input> {
    /** The version of the standard. */
    readonly version: 1;
    /** Who made the schema. */
    readonly vendor: string;
    /** Validates a value: its output, or the issues found. */
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    /** The input and output types, for inference only (never set at run time). */
    readonly types?: Types<Input, Output> | undefined;
  }

  /** What validation gives. */
  type Result<Output> = SuccessResult<Output> | FailureResult;

  /** The value is valid: `value` is the output. */
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }

  /** The value is not valid. */
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }

  /** Options a consumer may pass to `validate`. */
  interface Options {
    /** Options the consumer passes on to the library. */
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }

  /** One problem found. */
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }

  /** A segment of an issue's path. */
  interface PathSegment {
    readonly key: PropertyKey;
  }

  /** The types a schema takes and gives. */
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }

  /** The input type of a schema. */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];

  /** The output type of a schema. */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output'];
}
