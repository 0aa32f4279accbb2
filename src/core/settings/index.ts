/** What the user set up in the screens (columns, hierarchy). */
export { createSettings } from './handlers';
