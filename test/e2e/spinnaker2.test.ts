import { platformSuite } from './platform-suite.js';

// Every integer folder of ../shared/deeploy-tests (the suite checks there are 55) matches outputs.npz exactly.
platformSuite('spinnaker2');
