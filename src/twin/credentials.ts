import type { DemoService } from '@core/ports/ports';

/**
 * The twin's demo account. These are public on purpose (printed by `simulator` and written in the README):
 * the twin holds only synthetic data.
 */
export const DEMO_CREDENTIALS: DemoService['credentials'] = {
  clientId: 'ro.customer.client',
  apiSecret: 'demo-api-secret',
  username: 'finance@demo-broker.example',
  password: 'demo-password',
  resellerId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  sellerId: '9b2d5c1e-3f4a-4b6c-8d7e-0a1b2c3d4e5f',
};
