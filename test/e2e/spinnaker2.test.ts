import { platformSuite } from './platform-suite.js';
import { s2Supported } from './spinnaker2-folders.js';

platformSuite('spinnaker2', s2Supported);
