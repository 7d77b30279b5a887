// `--otel`: the OpenTelemetry Node SDK, an optional peer of the server, set up by the standard
// `OTEL_*` variables. The spans are the core's and the stores' own (a request's SERVER span, a
// batch's span); the SDK is given no instrumentation of its own.
import { isMissingPackage, MissingPackageError } from './open-store.js';

const SDK_PACKAGE = '@opentelemetry/sdk-node';
type SdkPackage = typeof import('@opentelemetry/sdk-node');

/** The service name when `OTEL_SERVICE_NAME` does not give one. */
const SERVICE_NAME = 'plant-store-server';

/** Loads the SDK, or rejects with a {@link MissingPackageError} naming the command that installs it. */
export async function loadTracingSdk(
  load: () => Promise<SdkPackage> = () => import('@opentelemetry/sdk-node'),
): Promise<SdkPackage> {
  try {
    return await load();
  } catch (error) {
    throw missingSdk(error);
  }
}

/**
 * Throws what {@link loadTracingSdk} would when the SDK is not installed, without loading it: the
 * primary of `--workers` traces nothing, and loading the SDK costs a process about a second of CPU,
 * which would delay the fork of every worker. `resolve` finds a package (a test gives its own).
 */
export function findTracingSdk(
  resolve: (specifier: string) => string = (specifier) => import.meta.resolve(specifier),
): void {
  try {
    resolve(SDK_PACKAGE);
  } catch (error) {
    throw missingSdk(error);
  }
}

/** `error` as it is, or a {@link MissingPackageError} naming the install command when the SDK is not there. */
function missingSdk(error: unknown): unknown {
  if (!isMissingPackage(error, SDK_PACKAGE)) return error;
  return new MissingPackageError(
    `--otel needs the OpenTelemetry SDK, an optional peer of @plant-store/server that is not installed: npm install ${SDK_PACKAGE} @opentelemetry/api`,
  );
}

/** What NodeSDK keeps of the resource it gives its providers (a private field: see startTracing). */
interface SdkWithResource {
  readonly _resource?: { waitForAsyncAttributes?(): Promise<void> };
}

/**
 * Starts the SDK in this process: traces only (metrics stay on the operations listener, logs on
 * stderr) unless `OTEL_METRICS_EXPORTER` or `OTEL_LOGS_EXPORTER` ask for more. Resolves, once the
 * resource's attributes have settled, to what writes out the spans not yet exported, for the exit.
 */
export async function startTracing(
  sdk: SdkPackage,
  env: NodeJS.ProcessEnv = process.env,
): Promise<() => Promise<void>> {
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const node = new sdk.NodeSDK({
    // The SDK reads OTEL_SERVICE_NAME itself, and a name given here would win over it.
    ...(env.OTEL_SERVICE_NAME === undefined && { serviceName: SERVICE_NAME }),
    instrumentations: [],
  });
  node.start();
  // Some of the resource's attributes settle later (host.id: a dynamic import, then a file read, which
  // a loaded machine can hold back for seconds). Until they have, the batch processor takes a batch
  // out of its queue and waits for them before it hands the batch to the exporter, and its shutdown
  // waits for neither: a SIGTERM then exits 0 with the spans of the last requests in neither place
  // (sdk-trace 2.12, BatchSpanProcessorBase). Settled before the server serves, no export ever waits.
  // The resource is the one every span carries; NodeSDK keeps it in a private field.
  await (node as unknown as SdkWithResource)._resource?.waitForAsyncAttributes?.();
  return () => node.shutdown();
}
