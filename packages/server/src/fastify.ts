// The public surface of @plant-store/server/fastify: a Fastify plugin over createPlantStoreListener.
import type { IncomingMessage } from 'node:http';
import type { PlantStore } from '@plant-store/core';
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import type { PlantStoreListener } from './create-plant-store-listener.js';

/** Options of {@link plantStorePlugin}, beside Fastify's own `prefix`. */
export interface PlantStorePluginOptions {
  /** The listener that answers: `createPlantStoreListener(...)`, whose tokens and store stay yours. */
  readonly listener: PlantStoreListener<PlantStore>;
}

/**
 * A Fastify plugin that serves the Plant Store API under its prefix, beside the app's own routes.
 * Its routes read no body: in its own (encapsulated) context, every content type is left unparsed,
 * so the listener reads the bytes and ids stay exact, while the app's parsers elsewhere are untouched.
 * Everything under the prefix is the service's, so an unknown path there is its 404 Error.
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createPlantStoreListener } from '@plant-store/server';
 * import { plantStorePlugin } from '@plant-store/server/fastify';
 *
 * const app = Fastify();
 * await app.register(plantStorePlugin, { prefix: '/plant-api', listener: createPlantStoreListener({ tokens: ['s3cret'] }) });
 * await app.listen({ port: 3000 });
 * ```
 */
export const plantStorePlugin: FastifyPluginCallback<PlantStorePluginOptions> = (fastify, options, done) => {
  const listener = options?.listener;
  if (typeof listener !== 'function' || listener.app === undefined) {
    done(new TypeError('plantStorePlugin needs { listener }: a listener made by createPlantStoreListener'));
    return;
  }
  const prefix = fastify.prefix;
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request: FastifyRequest, _payload: IncomingMessage, parsed) => parsed(null));
  const handler = (request: FastifyRequest, reply: FastifyReply): void => {
    reply.hijack();
    const req = request.raw as IncomingMessage & { originalUrl?: string };
    // The connect convention the listener reads (Express's): the target under the mount in `url`,
    // the full one in `originalUrl`.
    if (prefix !== '' && req.originalUrl === undefined) {
      req.originalUrl = req.url;
      req.url = req.url!.slice(prefix.length) || '/';
    }
    listener(req, reply.raw);
  };
  fastify.all(`${listener.app.basePath}/plants`, handler);
  // Under a prefix every path is the service's; without one, the app's other paths stay the app's.
  if (prefix !== '') {
    fastify.all('/', handler);
    fastify.all('/*', handler);
  }
  done();
};
