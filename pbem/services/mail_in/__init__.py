"""One player's mail: screened, its lines read, its game found, its commands applied, its reply written; refused
mail gathered into digests. May import table, mail_out, operations, common and the layers below; not clock, the archive or pbem.worker."""
