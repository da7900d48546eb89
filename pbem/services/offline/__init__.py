"""Games played and replayed without mail or database: random players (`pbem sim`, the benchmarks) and transcripts.
May import mail_out, operations, common and the layers below; not table, mail_in or clock."""
