import { platformSuite } from './platform-suite.js';

platformSuite('siracusa');
