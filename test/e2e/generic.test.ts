import { platformSuite } from './platform-suite.js';

platformSuite('generic');
