// Pre-parses every firmware template into dist/ (see generator/backend/template-tokens.ts).
import { TOKENS_FILE, writeTokensFile } from '../generator/backend/template-tokens.js';

console.log(`templates: ${writeTokensFile()} parsed into ${TOKENS_FILE}`);
