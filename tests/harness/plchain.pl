# The Perl case of the offline harness (test_unwind_perl.sh): a known call
# chain that ends in a C library, where gdb stops it (a breakpoint on
# libcrypt's crypt_r) and captures it:
#   <main> -> main::main -> Walker::run (a method) -> sort, whose C code
#   calls the comparator block -> main::recurse x DEPTH+1 (recursion)
#   -> main::leaf -> crypt -> crypt_r.
# Right before the call into libcrypt, in the same statement, it writes
# its own view of its stack (caller(): the independent reference) to the
# file named by $ARGV[0] as "function<TAB>file<TAB>line<TAB>entry" lines,
# innermost first. entry is 1 for the frames C code entered (a run of the
# interpreter loop starts there): the first recurse (called by sort's C
# code) and <main> (perl_run).
#   usage: perl plchain.pl OUT
use strict;
use warnings;

my $OUT = $ARGV[0];
our $DEPTH = 3;

sub reference {
	my ($value) = @_;
	my @lines;
	for (my $i = 0; my @c = caller($i); $i++) {
		my @up = caller($i + 1);
		my $func = @up ? $up[3] : "<main>";
		my $entry = !@up || ($func eq "main::recurse" && (caller($i + 2))[3] eq "Walker::run");
		push @lines, join("\t", $func, $c[1], $c[2], $entry ? 1 : 0);
	}
	open(my $fh, ">", $OUT) or die "$OUT: $!";
	print $fh join("\n", @lines), "\n";
	close($fh);
	return $value;
}

sub leaf {
	return crypt(reference("trec"), "ab");
}

sub recurse {
	my ($n) = @_;
	return length(leaf()) if $n == 0;
	return recurse($n - 1);
}

package Walker;

sub new { return bless {}, shift }

sub run {
	my @s = sort { main::recurse($main::DEPTH) <=> $a } (1, 2);
	return $s[0];
}

package main;

sub main {
	print Walker->new->run, "\n";
}

main();
