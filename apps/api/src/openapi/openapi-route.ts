import express, { type Request, type Response } from 'express';
import swaggerUi from 'swagger-ui-express';
import { pageContentSecurityPolicy } from '../http/security-headers';
import { openApiDocument } from './openapi-document';

export const OPENAPI_PATH = '/api/v1/openapi.json';

/** GET /api/v1/openapi.json: built once per process (it depends on code only). */
export function openApiRoute() {
  const body = JSON.stringify(openApiDocument());
  return (_req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.status(200).type('application/json').send(body);
  };
}

/**
 * GET /docs: Swagger UI reading the served document. swagger-ui-express serves swagger-ui-dist's files
 * from node_modules, so the page needs nothing but this process; the online validator badge is off
 * (it would call validator.swagger.io).
 */
export function docsRouter(): express.Router {
  const router = express.Router();
  router.use(pageContentSecurityPolicy);
  router.use(swaggerUi.serve);
  router.get(
    '/',
    swaggerUi.setup(undefined, {
      customSiteTitle: 'leadgen API reference',
      swaggerOptions: { url: OPENAPI_PATH, validatorUrl: null, persistAuthorization: false },
    }),
  );
  return router;
}
