// SPDX-License-Identifier: MIT
/*
 * A program that embeds Perl through libperl.so (perlembed), for
 * tests/perl/test_perl_record.sh: trecord must find the interpreter in
 * the shared library. Usage: embed SCRIPT ARGS...
 */
#include <EXTERN.h>
#include <perl.h>

static PerlInterpreter *my_perl;

static void xs_init(pTHX)
{
}

int main(int argc, char **argv, char **env)
{
	int rc;

	PERL_SYS_INIT3(&argc, &argv, &env);
	my_perl = perl_alloc();
	perl_construct(my_perl);
	PL_exit_flags |= PERL_EXIT_DESTRUCT_END;
	rc = perl_parse(my_perl, xs_init, argc, argv, NULL);
	if (!rc)
		rc = perl_run(my_perl);
	perl_destruct(my_perl);
	perl_free(my_perl);
	PERL_SYS_TERM();
	return rc;
}
