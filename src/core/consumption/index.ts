/** Metered consumption: files read and checked, batches submitted and watched, failed rows, the history. */
export { type ConsumptionApi, createConsumption, type ConsumptionModule } from './handlers';
