import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { nextPageHeaders } from '../../http/pages';
import * as service from './webhooks.service';

const s = initServer();

export const webhooksRouter = (context: ServerContext) =>
  s.router(contract.webhooks, {
    listWebhooks: async ({ req }) => ({ status: 200, body: await service.listWebhooks(context, principalOf(req)) }),
    createWebhook: async ({ req, body }) => ({
      status: 201,
      body: await service.createWebhook(context, principalOf(req), body),
    }),
    getWebhook: async ({ req, params }) => ({
      status: 200,
      body: await service.getWebhook(context, principalOf(req), params.id),
    }),
    updateWebhook: async ({ req, params, body, headers }) => ({
      status: 200,
      body: await service.updateWebhook(context, principalOf(req), params.id, body, headers['if-match']),
    }),
    deleteWebhook: async ({ req, params, headers }) => {
      await service.deleteWebhook(context, principalOf(req), params.id, headers['if-match']);
      return { status: 204, body: undefined };
    },
    listWebhookDeliveries: async ({ req, res, params, query }) => {
      const { deliveries, next } = await service.listWebhookDeliveries(context, principalOf(req), params.id, query);
      nextPageHeaders(req.originalUrl, res, next);
      return { status: 200, body: deliveries };
    },
    testWebhook: async ({ req, params }) => ({
      status: 200,
      body: await service.testWebhook(context, principalOf(req), params.id),
    }),
    rotateWebhookSecret: async ({ req, params }) => ({
      status: 200,
      body: await service.rotateWebhookSecret(context, principalOf(req), params.id),
    }),
  });
